/**
 * `npm run bench`: every benchmark, one after the other, against the machine's NATS and
 * Postgres (NATS_URL / DATABASE_URL). Prints one table; figures go in the README.
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { MEMORY_NODE_FLAGS } from '../services/memory/node-flags';
import { benchChannelLoad } from './channel-load.bench';
import { benchCommunitySoak } from './community-soak';
import { benchCoordinatorReplicas } from './coordinator-replicas.bench';
import { benchDiscordIngest } from './discord-ingest.bench';
import { benchFoundation } from './foundation.bench';
import { benchLearning } from './learning.bench';
import { benchLlmGateway } from './llm-gateway.bench';
import { benchMemory, benchMemoryScale } from './memory.bench';
import { benchOtelOverhead } from './otel-overhead.bench';
import { benchProjection } from './projection.bench';
import { benchRouter } from './router.bench';
import type { BenchResult } from './stats';
import { benchTurnCoordinator } from './turn-coordinator.bench';

const suites: [string, () => Promise<BenchResult>][] = [
  ['foundation', benchFoundation],
  ['turn-coordinator', benchTurnCoordinator],
  ['otel-overhead', benchOtelOverhead],
  ['coordinator-replicas', benchCoordinatorReplicas],
  ['channel-load', benchChannelLoad],
  ['projection', benchProjection],
  ['discord-ingest', benchDiscordIngest],
  ['llm-gateway', benchLlmGateway],
  ['router', benchRouter],
  ['memory', benchMemory],
  ['memory-scale', benchMemoryScale],
  ['community-soak', benchCommunitySoak],
  ['learning', benchLearning],
];

/**
 * Node flags a suite needs because it hosts a service in this process as that service is
 * deployed (V8 reads them when the heap is set up): without them, the suite runs in a child
 * process started with them.
 */
const suiteFlags: Record<string, readonly string[]> = { 'memory-scale': MEMORY_NODE_FLAGS };

/** A suite's table rows from a child process running it with the flags it needs. */
function inChild(name: string, flags: readonly string[]): string[] {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, ...flags, process.argv[1], name, ...process.argv.slice(3)],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
  );
  const rows = (child.stdout ?? '').split('\n').filter((l) => l.startsWith(`| ${name} |`));
  if (child.status !== 0 || !rows.length) {
    process.exitCode = 1;
    if (!rows.length)
      rows.push(`| ${name} | FAILED | child exited ${child.status ?? child.signal} |`);
  }
  return rows;
}

async function main() {
  const only = process.argv[2];
  const rows: string[] = ['| suite | figure | value |', '|---|---|---|'];
  for (const [name, run] of suites) {
    if (only && only !== name) continue;
    const flags = suiteFlags[name] ?? [];
    if (flags.some((f) => !process.execArgv.includes(f))) {
      rows.push(...inChild(name, flags));
      continue;
    }
    process.stderr.write(`running ${name}...\n`);
    try {
      const result = await run();
      for (const [k, v] of Object.entries(result)) rows.push(`| ${name} | ${k} | ${v} |`);
    } catch (e) {
      rows.push(`| ${name} | FAILED | ${(e as Error).message} |`);
      process.exitCode = 1;
    }
  }
  console.log(rows.join('\n'));
}

// Exits when done: a suite may leave a handle open (a child's pipe, a client's timer).
void main().finally(() => process.exit());
