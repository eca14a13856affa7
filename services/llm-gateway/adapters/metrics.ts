import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '@dirigent/messaging';
import type { LlmGateway, UsageRecord } from '@dirigent/llm';

const requests = new Counter({
  name: 'dirigent_llm_requests_total',
  help: 'Model gateway calls by kind, answering model and outcome',
  labelNames: ['kind', 'model', 'outcome'] as const,
  registers: [metricsRegistry],
});

const cost = new Counter({
  name: 'dirigent_llm_cost_usd_total',
  help: 'Settled cost of model gateway calls, in USD',
  labelNames: ['model'] as const,
  registers: [metricsRegistry],
});

const tokens = new Counter({
  name: 'dirigent_llm_tokens_total',
  help: 'Tokens billed by the upstreams',
  labelNames: ['model', 'direction'] as const,
  registers: [metricsRegistry],
});

const fallbacks = new Counter({
  name: 'dirigent_llm_fallbacks_total',
  help: 'Deployments abandoned (failed, cooling down or unaffordable) before the one that answered',
  labelNames: ['model'] as const,
  registers: [metricsRegistry],
});

const latency = new Histogram({
  name: 'dirigent_llm_request_duration_seconds',
  help: 'Model gateway call duration, admission to last byte from the upstream',
  labelNames: ['kind', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

/** Calls admitted from credit a replica reserved ahead (no round trip to Postgres). */
export const creditAdmissions = new Counter({
  name: 'dirigent_llm_budget_credit_admissions_total',
  help: 'Calls admitted from budget credit reserved ahead for a busy guild day',
  registers: [metricsRegistry],
});

/** Counts one usage record in the Prometheus metrics. */
export function observeUsage(u: UsageRecord): void {
  const model = u.model ?? 'none';
  requests.inc({ kind: u.kind, model, outcome: u.outcome });
  latency.observe({ kind: u.kind, outcome: u.outcome }, u.latencyMs / 1000);
  if (u.costUsd > 0) cost.inc({ model }, u.costUsd);
  if (u.inputTokens) tokens.inc({ model, direction: 'input' }, u.inputTokens);
  if (u.outputTokens) tokens.inc({ model, direction: 'output' }, u.outputTokens);
  for (const f of u.fallbacks) fallbacks.inc({ model: f });
}

let cooling: LlmGateway | undefined;
new Gauge({
  name: 'dirigent_llm_deployments_cooling_down',
  help: 'Deployments (model ids) this process skips until their cooldown ends',
  registers: [metricsRegistry],
  collect() {
    this.set(cooling ? cooling.cooldowns.snapshot(Date.now()).length : 0);
  },
});

/** The gateway whose cooldowns the gauge reports (the last one started in this process). */
export function reportCooldowns(gateway: LlmGateway): void {
  cooling = gateway;
}

let budgets: (() => Promise<{ guildId: string; usedRatio: number }[]>) | undefined;
new Gauge({
  name: 'dirigent_llm_budget_used_ratio',
  help: "Share of a guild's daily budget spent or reserved today (1 = the limit), read from Postgres at each scrape",
  labelNames: ['guild_id'] as const,
  registers: [metricsRegistry],
  async collect() {
    if (!budgets) return;
    const rows = await budgets().catch(() => undefined);
    if (!rows) return;
    this.reset();
    for (const r of rows) this.set({ guild_id: r.guildId }, r.usedRatio);
  },
});

/** Where the budget gauge reads today's usage (every replica reports the same rows). */
export function reportBudgets(read: () => Promise<{ guildId: string; usedRatio: number }[]>) {
  budgets = read;
}
