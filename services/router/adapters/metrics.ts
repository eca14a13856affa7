import { Counter } from 'prom-client';
import { metricsRegistry } from '@dirigent/messaging';

/** Decisions published, by the disposition chosen and what triggered them. */
export const decisionsMade = new Counter({
  name: 'dirigent_router_decisions_total',
  help: 'Router decisions published, by chosen disposition and trigger',
  labelNames: ['disposition', 'trigger'] as const,
  registers: [metricsRegistry],
});
