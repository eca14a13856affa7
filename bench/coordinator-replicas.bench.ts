import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { runSoak, type SoakReport } from './soak-run';
import type { BenchResult } from './stats';

const CHANNELS = Number(process.env.BENCH_REPLICAS_CHANNELS ?? 40);
const SECONDS = Number(process.env.BENCH_REPLICAS_SECONDS ?? 30);
const PARTITIONS = 6;
/** Replica counts run partitioned (BENCH_REPLICAS_COUNTS, e.g. `1,2`); default 1, 2 and 3. */
const COUNTS = (process.env.BENCH_REPLICAS_COUNTS ?? '1,2,3').split(',').map(Number);
/** Every configuration this many times, in turn (the machine's load drifts between runs). */
const ROUNDS = Number(process.env.BENCH_REPLICAS_ROUNDS ?? 1);
const RESULTS = resolve(__dirname, '../../bench/results/coordinator-replicas.json');

/**
 * Turn-coordinator throughput with 1, 2 and 3 replicas on the same load: the soak's scripted
 * agents (40 channels, 3 agents each, a person now and then) against the built coordinator
 * as child processes, no kills, 30 s each (BENCH_REPLICAS_CHANNELS / _SECONDS). Every run is
 * partitioned the same way (6 partitions), so only the replica count changes; the
 * unpartitioned single replica is given for reference. Needs `npm run build` (bench does it)
 * and Postgres (`DATABASE_URL`); each run has a nats-server of its own. Correctness counts
 * must stay 0 (they are reported too).
 *
 * Besides turns/s, each run reports what a turn costs: CPU ms of all replicas together (and
 * of the nats-server and the scripted agents, which share the machine), each replica's CPU
 * seconds and share of the turns it decided, deliveries to the channel durables, forwarded
 * check-turns and Postgres transactions per turn. Flat coordinator CPU per turn, divided
 * among the replicas in proportion to their turns, is what makes throughput grow with
 * cores: "turns/s bound with a core per replica" is 1000 ms over the busiest replica's CPU
 * ms per turn. "partition moves" counts leases that changed hands during the run: a replica
 * starved of CPU (the machine shared with other work) that cannot renew within ¾ of the
 * lease loses it, and the partition pauses while it moves (DIRIGENT_COORDINATOR_LEASE_MS in
 * the bench's environment reaches the replicas). BENCH_REPLICAS_ROUNDS runs every
 * configuration that many times in turn.
 * Written to bench/results/coordinator-replicas.json too.
 */
export async function benchCoordinatorReplicas(): Promise<BenchResult> {
  const result: BenchResult = { channels: CHANNELS, 'seconds per run': SECONDS };
  const runs: Record<string, SoakReport & { load: string }> = {};
  const run = async (replicas: number, partitions: number, name: string, round: number) => {
    const label = ROUNDS > 1 ? `${name}, round ${round}` : name;
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
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
    runs[label] = { ...r, load };
    result[`turns/s, ${label}`] = r.turnsPerS;
    result[`coordinator CPU ms/turn, ${label}`] = r.coordinatorCpuMsPerTurn;
    result[`turns/s bound with a core per replica, ${label}`] = r.coreBoundTurnsPerS;
    result[`per replica CPU s (share of turns), ${label}`] = Object.keys(r)
      .filter((k) => k.endsWith(' cpuS'))
      .map((k) => `${r[k]} (${r[k.replace(' cpuS', ' turnsShare')]})`)
      .join(' / ');
    result[`nats / agents CPU ms/turn, ${label}`] =
      `${r.natsCpuMsPerTurn} / ${r.agentsCpuMsPerTurn}`;
    result[`deliveries / forwarded checks / pg xacts per turn, ${label}`] =
      `${r.deliveriesPerTurn} / ${r.forwardedChecksPerTurn} / ${r.pgTransactionsPerTurn}`;
    result[`partition moves, ${label}`] = r.leaseMoves;
    for (const k of ['doubleGrants', 'repeatedGrants', 'refusals', 'stuckChannels'] as const) {
      result[`${k}, ${label}`] = r[k];
    }
    result[`load before, ${label}`] = load;
    if (r.examples) process.stderr.write(`${label}: ${r.examples}\n`);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    if (process.env.BENCH_REPLICAS_UNPARTITIONED !== '0') {
      await run(1, 0, '1 replica, unpartitioned', round);
    }
    for (const n of COUNTS) {
      const name = `${n} replica${n > 1 ? 's' : ''}, ${PARTITIONS} partitions`;
      await run(n, PARTITIONS, name, round);
    }
  }
  mkdirSync(resolve(RESULTS, '..'), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ at: new Date().toISOString(), channels: CHANNELS, seconds: SECONDS, partitions: PARTITIONS, runs }, null, 2)}\n`,
  );
  return result;
}
