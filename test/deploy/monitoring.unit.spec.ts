/**
 * The Grafana dashboard and the alert rules of deploy/k8s query only metrics the services
 * export: every file of libs/ and services/ that registers a metric on the shared registry is
 * loaded, and the registry's own list of metric names (with each histogram's series) is
 * what the queries are checked against.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { metricsRegistry } from '@dirigent/messaging';

const root = join(__dirname, '..', '..');
const k8s = join(root, 'deploy', 'k8s');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'test') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

/** Files that register a metric on the shared registry. */
const registering = [...sourceFiles(join(root, 'libs')), ...sourceFiles(join(root, 'services'))]
  .filter((f) => readFileSync(f, 'utf8').includes('registers: [metricsRegistry]'))
  .map((f) => relative(root, f));

async function exported(): Promise<Set<string>> {
  for (const f of registering) await import(join(root, f));
  const names = new Set<string>();
  for (const m of await metricsRegistry.getMetricsAsJSON()) {
    names.add(m.name);
    if (String(m.type) === 'histogram') {
      for (const s of ['_bucket', '_sum', '_count']) names.add(`${m.name}${s}`);
    }
  }
  return names;
}

/** Metric names a PromQL expression reads (ours and Node's defaults). */
function metricsOf(expr: string): string[] {
  const unquoted = expr.replace(/"[^"]*"/g, '""');
  return [...unquoted.matchAll(/\b((?:dirigent|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]);
}

const dashboard = JSON.parse(
  readFileSync(join(k8s, 'monitoring', 'dirigent-dashboard.json'), 'utf8'),
) as { panels: { type: string; title: string; targets?: { expr: string }[] }[] };
const rules = parseAllDocuments(readFileSync(join(k8s, 'alerts.yaml'), 'utf8')).map(
  (d) => d.toJS() as { kind: string; spec: { groups: { rules: Record<string, string>[] }[] } },
);
const alerts = rules.flatMap((r) => r.spec.groups.flatMap((g) => g.rules));

describe('dashboard and alert rules', () => {
  it('finds the metric registrations it checks against', () => {
    expect(registering).toEqual(
      expect.arrayContaining([
        'libs/messaging/src/metrics.ts',
        'libs/event-store/src/projection.ts',
        'services/llm-gateway/adapters/metrics.ts',
        'services/router/adapters/metrics.ts',
        'services/memory/adapters/metrics.ts',
        'services/turn-coordinator/adapters/metrics.ts',
        'services/discord-ingest/adapters/metrics.ts',
      ]),
    );
  });

  it('the dashboard has a row per service with what each must show', () => {
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual(['turn-coordinator', 'router', 'memory', 'llm-gateway', 'discord-ingest']);
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join('\n');
    for (const m of [
      'dirigent_handler_duration_seconds_bucket',
      'dirigent_consumer_pending_messages',
      'dirigent_consumer_redeliveries_total',
      'dirigent_consumer_dead_letters_total',
      'dirigent_turn_grants_total',
      'dirigent_llm_cost_usd_total',
      'dirigent_llm_budget_used_ratio',
      'dirigent_memory_ingest_lag_seconds',
      'dirigent_router_decisions_total',
    ]) {
      expect(exprs).toContain(m);
    }
    expect(exprs).toContain('name="dirigent.turn.check"');
  });

  it('alerts on lag, dead letters, budgets, projections and partitions', () => {
    expect(rules.map((r) => r.kind)).toEqual(['PrometheusRule']);
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      'DirigentConsumerLagGrowing',
      'DirigentDeadLetters',
      'DirigentGuildBudgetHigh',
      'DirigentPartitionUnowned',
      'DirigentProjectionBehindEventStore',
    ]);
    const lag = alerts.find((a) => a.alert === 'DirigentConsumerLagGrowing')!;
    expect(lag.for).toBe('5m');
    expect(alerts.find((a) => a.alert === 'DirigentGuildBudgetHigh')!.expr).toMatch(/> 0\.9\b/);
  });

  it('queries only metrics some service exports', async () => {
    const names = await exported();
    const queried = [
      ...dashboard.panels.flatMap((p) =>
        (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
      ),
      ...alerts.map((a) => ({ where: `alert ${a.alert}`, expr: a.expr })),
    ];
    expect(queried.length).toBeGreaterThan(20);
    const missing = queried.flatMap(({ where, expr }) =>
      metricsOf(expr)
        .filter((m) => !names.has(m))
        .map((m) => `${where}: ${m}`),
    );
    expect(missing).toEqual([]);
    // Each query reads at least one metric the check knows of (no untracked prefixes).
    for (const { where, expr } of queried) {
      expect({ where, metrics: metricsOf(expr).length > 0 }).toEqual({ where, metrics: true });
    }
  });
});
