import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawnService, testNatsUrl, type SpawnedService } from '@dirigent/testing';
import { MEMORY_NODE_FLAGS } from '../../services/memory/node-flags';

/** The built memory service, from `dist/bench/memory/`. */
const MAIN = resolve(__dirname, '../../services/memory/main.js');
/** Clock ticks a second in `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/**
 * Memory's `jobs` replica as it is deployed: the built service in a process of its own
 * (with memory's Node flags), on the bench's NATS and database, consuming the Discord
 * events, the moment batches, the epoch timers and the redactions, and holding no index.
 */
export class JobsReplica {
  private constructor(private readonly service: SpawnedService) {}

  static async start(databaseUrl: string, env: Record<string, string>): Promise<JobsReplica> {
    const service = await spawnService(
      MAIN,
      'MEMORY_PORT',
      {
        NATS_URL: testNatsUrl(),
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'error',
        ...env,
        DIRIGENT_MEMORY_ROLE: 'jobs',
      },
      60_000,
      [
        ...MEMORY_NODE_FLAGS,
        // With BENCH_CPU_PROFILE=<dir>, its whole run's CPU profile there as it exits.
        ...(process.env.BENCH_CPU_PROFILE
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`]
          : []),
      ],
    );
    return new JobsReplica(service);
  }

  /** The CPU time (user + system, ms) the process has spent so far. */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.service.child.pid}/stat`, 'utf8');
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  }

  /** Its resident memory (MB). */
  rssMb(): number {
    const status = readFileSync(`/proc/${this.service.child.pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
  }

  async stop(): Promise<void> {
    await this.service.kill('SIGTERM');
  }
}
