/**
 * `npm run soak`: the harsh fault soak (not part of `npm test`; engine in soak-run.ts). N
 * channels of scripted relay-client agents talk through the built coordinator (child
 * processes) while a replica is SIGKILLed every K seconds and restarted at once, for D
 * seconds, on a nats-server and a scratch database of its own. Reports turns, turns/s, double
 * grants, repeated grants, check-turn refusals of the granted speaker, stuck channels (no
 * grant for more than 30 s) and the takeover time after a kill; exits 1 unless all counts
 * are zero.
 *
 *   npm run soak -- --channels 20 --kill-every 7 --duration 60
 *   npm run soak -- --replicas 3 --kill-every 5 --duration 120        (6 partitions)
 *   npm run soak -- --kill-every 7 --nats-restart-every 2             (NATS restarted too)
 *   (or SOAK_CHANNELS, SOAK_KILL_EVERY_S, SOAK_DURATION_S, SOAK_REPLICAS, SOAK_PARTITIONS,
 *   SOAK_NATS_RESTART_EVERY, SOAK_FRESH_IDS=1, SOAK_KEEP_NATS_URL=1 uses NATS_URL;
 *   --kill-every 0: no kills)
 */
import 'reflect-metadata';
import { runSoak, soakLog } from './soak-run';

function option(flag: string, env: string, fallback: number, min = 1): number {
  const i = process.argv.indexOf(flag);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[env];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${flag} / ${env} must be a number ≥ ${min}`);
  return n;
}

async function main() {
  const replicas = option('--replicas', 'SOAK_REPLICAS', 1);
  const report = await runSoak({
    channels: option('--channels', 'SOAK_CHANNELS', 40),
    killEveryS: option('--kill-every', 'SOAK_KILL_EVERY_S', 7, 0),
    durationS: option('--duration', 'SOAK_DURATION_S', 180),
    replicas,
    partitions: option('--partitions', 'SOAK_PARTITIONS', replicas > 1 ? 6 : 0, 0),
    natsRestartEveryKills: option('--nats-restart-every', 'SOAK_NATS_RESTART_EVERY', 0, 0),
    freshIds: process.argv.includes('--fresh-ids') || process.env.SOAK_FRESH_IDS === '1',
    keepNatsUrl: process.env.SOAK_KEEP_NATS_URL === '1',
  });
  const { examples, ...figures } = report;
  console.log(JSON.stringify(figures, null, 2));
  if (examples) soakLog(`examples: ${examples}`);
  if (report.failed) process.exitCode = 1;
}

void main()
  .catch((e: Error) => {
    soakLog(e.message);
    process.exitCode = 1;
  })
  .finally(() => process.exit());
