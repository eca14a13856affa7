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
