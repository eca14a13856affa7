import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process; every service's `/metrics` renders it. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export type LatencyLabels = { kind: string; name: string; outcome: string };

/** Observations not yet in the histogram (see {@link observeHandlerLatency}). */
const pendingLabels: LatencyLabels[] = [];
const pendingSeconds: number[] = [];
let drainScheduled = false;

function drainLatencies(): void {
  drainScheduled = false;
  for (let i = 0; i < pendingLabels.length; i++) {
    handlerLatency.observe(pendingLabels[i], pendingSeconds[i]);
  }
  pendingLabels.length = 0;
  pendingSeconds.length = 0;
}

export const handlerLatency = new Histogram({
  name: 'dirigent_handler_duration_seconds',
  help: 'Time spent in a NATS handler (consumer or request/reply)',
  labelNames: ['kind', 'name', 'outcome'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
  collect: drainLatencies,
});

/**
 * Records a handler call that started at `startedAt` (`performance.now()`) in
 * `dirigent_handler_duration_seconds` once the current I/O is done (and before any read of the
 * histogram): prom-client validates and hashes the labels of every observation, a few µs that
 * a reply need not wait for. A caller that observes often passes the same labels object each
 * time (nothing is made per call).
 */
export function observeHandlerLatency(labels: LatencyLabels, startedAt: number): void {
  pendingLabels.push(labels);
  pendingSeconds.push((performance.now() - startedAt) / 1000);
  if (drainScheduled) return;
  drainScheduled = true;
  setImmediate(drainLatencies);
}

export const consumerLag = new Gauge({
  name: 'dirigent_consumer_pending_messages',
  help: 'Messages still pending for a durable consumer, as of its last delivery',
  labelNames: ['stream', 'durable'] as const,
  registers: [metricsRegistry],
});

export const redeliveries = new Counter({
  name: 'dirigent_consumer_redeliveries_total',
  help: 'Deliveries of a message that had been delivered before',
  labelNames: ['stream', 'durable'] as const,
  registers: [metricsRegistry],
});

export const deadLetters = new Counter({
  name: 'dirigent_consumer_dead_letters_total',
  help: 'Messages terminated and recorded as dead letters',
  labelNames: ['stream', 'durable'] as const,
  registers: [metricsRegistry],
});
