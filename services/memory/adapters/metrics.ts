import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '@dirigent/messaging';

const ingestLag = new Gauge({
  name: 'dirigent_memory_ingest_lag_seconds',
  help: 'Time from a Discord message being written to memory having stored it, as of the last one stored',
  registers: [metricsRegistry],
});

/** Records that a message created at `createdAt` (ISO) is now stored. */
export function observeIngested(createdAt: string, now = Date.now()): void {
  const at = Date.parse(createdAt);
  if (Number.isFinite(at)) ingestLag.set(Math.max(0, (now - at) / 1000));
}

const archiveFallbacks = new Counter({
  name: 'dirigent_memory_search_archive_fallback_total',
  help: 'Searches whose archive was ranked by Postgres full text because the in-process word index of the guild was still loading',
  registers: [metricsRegistry],
});

/** Counts a search answered without the guild's word index (a poorer ranking). */
export function observeArchiveFallback(): void {
  archiveFallbacks.inc();
}

/** Searches answered without the word index since this process started. */
export async function archiveFallbackCount(): Promise<number> {
  return (await archiveFallbacks.get()).values[0]?.value ?? 0;
}

let heldBytes: (() => number) | undefined;

new Gauge({
  name: 'dirigent_memory_archive_index_bytes',
  help: 'Estimated heap of the guild archive indexes this replica holds (kept within DIRIGENT_MEMORY_INDEX_BUDGET_MB when set)',
  registers: [metricsRegistry],
  collect() {
    this.set(heldBytes?.() ?? 0);
  },
});

/** What `dirigent_memory_archive_index_bytes` reports when scraped. */
export function reportIndexBytes(bytes: () => number): void {
  heldBytes = bytes;
}

const evictions = new Counter({
  name: 'dirigent_memory_archive_evictions_total',
  help: 'Guild archive indexes dropped by this replica, by why: over the memory budget, or their partition released',
  labelNames: ['why'],
  registers: [metricsRegistry],
});

/** Counts a guild's index dropped (`budget` or `released`). */
export function observeEviction(why: 'budget' | 'released'): void {
  evictions.inc({ why });
}
