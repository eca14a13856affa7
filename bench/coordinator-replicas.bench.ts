import { runSoak } from './soak-run';
import type { BenchResult } from './stats';

const CHANNELS = Number(process.env.BENCH_REPLICAS_CHANNELS ?? 40);
const SECONDS = Number(process.env.BENCH_REPLICAS_SECONDS ?? 30);
const PARTITIONS = 6;

/**
 * Turn-coordinator throughput with 1, 2 and 3 replicas on the same load: the soak's scripted
 * agents (40 channels, 3 agents each, a person now and then) against the built coordinator
 * as child processes, no kills, 30 s each (BENCH_REPLICAS_CHANNELS / _SECONDS). Every run is
 * partitioned the same way (6 partitions), so only the replica count changes; the
 * unpartitioned single replica is given for reference. Needs `npm run build` (bench does it)
 * and Postgres (`DATABASE_URL`); each run has a nats-server of its own. Correctness counts
 * must stay 0 (they are reported too).
 */
export async function benchCoordinatorReplicas(): Promise<BenchResult> {
  const result: BenchResult = { channels: CHANNELS, 'seconds per run': SECONDS };
  const run = async (replicas: number, partitions: number, label: string) => {
    const r = await runSoak({
      channels: CHANNELS,
      killEveryS: 0,
      durationS: SECONDS,
      replicas,
      partitions,
      natsRestartEveryKills: 0,
      freshIds: false,
      keepNatsUrl: false,
    });
    if (r.error) throw new Error(`${label}: ${r.error}`);
    result[`turns/s, ${label}`] = r.turnsPerS;
    for (const k of ['doubleGrants', 'repeatedGrants', 'refusals', 'stuckChannels'] as const) {
      result[`${k}, ${label}`] = r[k];
    }
    if (r.examples) process.stderr.write(`${label}: ${r.examples}\n`);
  };
  await run(1, 0, '1 replica, unpartitioned');
  for (const n of [1, 2, 3]) {
    await run(n, PARTITIONS, `${n} replica${n > 1 ? 's' : ''}, ${PARTITIONS} partitions`);
  }
  return result;
}
