import { Gauge } from 'prom-client';
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
