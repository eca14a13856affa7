/**
 * `npm run bench`: every benchmark, one after the other, against the machine's NATS and
 * Postgres (NATS_URL / DATABASE_URL). Prints one table; figures go in the README.
 */
import 'reflect-metadata';
import { benchChannelLoad } from './channel-load.bench';
import { benchCommunitySoak } from './community-soak';
import { benchCoordinatorReplicas } from './coordinator-replicas.bench';
import { benchDiscordIngest } from './discord-ingest.bench';
import { benchFoundation } from './foundation.bench';
import { benchLlmGateway } from './llm-gateway.bench';
import { benchMemory, benchMemoryScale } from './memory.bench';
import { benchProjection } from './projection.bench';
import { benchRouter } from './router.bench';
import type { BenchResult } from './stats';
import { benchTurnCoordinator } from './turn-coordinator.bench';

const suites: [string, () => Promise<BenchResult>][] = [
  ['foundation', benchFoundation],
  ['turn-coordinator', benchTurnCoordinator],
  ['coordinator-replicas', benchCoordinatorReplicas],
  ['channel-load', benchChannelLoad],
  ['projection', benchProjection],
  ['discord-ingest', benchDiscordIngest],
  ['llm-gateway', benchLlmGateway],
  ['router', benchRouter],
  ['memory', benchMemory],
  ['memory-scale', benchMemoryScale],
  ['community-soak', benchCommunitySoak],
];

async function main() {
  const only = process.argv[2];
  const rows: string[] = ['| suite | figure | value |', '|---|---|---|'];
  for (const [name, run] of suites) {
    if (only && only !== name) continue;
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
