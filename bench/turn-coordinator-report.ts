/** The turn-coordinator bench's figures: side by side with its anchors, CPU, results files. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { barChart, type Panel } from './chart';
import { ROOT } from './llm-gateway/processes';
import type { StallReport } from './stall-probe';
import { percentile, round, type BenchResult } from './stats';

export const TARGETS = ['raw', 'messaging', 'check'] as const;
export type Target = (typeof TARGETS)[number];

/** p50/p99 of the three targets at one rate, and their ratios to the raw echo. */
export function sideBySide(rate: string, samples: Record<Target, number[]>): BenchResult {
  const p = (t: Target, q: number) => percentile(samples[t], q);
  return {
    [`raw echo p50 ms ${rate}`]: round(p('raw', 50)),
    [`raw echo p99 ms ${rate}`]: round(p('raw', 99)),
    [`messaging echo p50 ms ${rate}`]: round(p('messaging', 50)),
    [`messaging echo p99 ms ${rate}`]: round(p('messaging', 99)),
    [`check-turn p50 ms ${rate}`]: round(p('check', 50)),
    [`check-turn p99 ms ${rate}`]: round(p('check', 99)),
    [`messaging/raw p50 ${rate}`]: round(p('messaging', 50) / p('raw', 50), 2),
    [`messaging/raw p99 ${rate}`]: round(p('messaging', 99) / p('raw', 99), 2),
    [`check-turn/raw p50 ${rate}`]: round(p('check', 50) / p('raw', 50), 2),
    [`check-turn/raw p99 ${rate}`]: round(p('check', 99) / p('raw', 99), 2),
  };
}

/** The machine's stalls while a rate was measured (bench/stall-probe.ts). */
export const stalls = (rate: string, r: StallReport): BenchResult => ({
  [`machine stalls > 1 ms per s ${rate}`]: r.stallsPerSecond,
  [`machine stall p99 ms ${rate}`]: r.p99OverrunMs,
});

/** CPU (ms) each server process used in each round, by the round's target. */
export type RoundCpu = Record<Target, { coordinator: number[]; echoes: number[] }>;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The servers' CPU at a rate (only when they have processes of their own): the coordinator's
 * over all the rounds per check sent (its idle work included, as in earlier readings), and the
 * CPU a request adds to the process that answers it — a round of its target against the
 * rounds of the others in the same process (the raw and messaging echoes share one) — so that
 * check-turn's cost is read next to the raw echo's.
 */
export function cpuPerRequest(
  rate: number,
  label: string,
  rounds: RoundCpu | undefined,
): BenchResult {
  if (!rounds) return {};
  const { raw, messaging, check } = rounds;
  const total = [...raw.coordinator, ...messaging.coordinator, ...check.coordinator];
  const added = (busy: number[], idle: number[]) =>
    round(((mean(busy) - mean(idle)) * 1000) / rate, 0);
  return {
    [`coordinator CPU µs per check ${label}`]: round(
      (total.reduce((a, b) => a + b, 0) * 1000) / (rate * check.coordinator.length),
      0,
    ),
    [`raw echo added CPU µs per request ${label}`]: added(raw.echoes, check.echoes),
    [`messaging echo added CPU µs per request ${label}`]: added(messaging.echoes, check.echoes),
    [`check-turn added CPU µs per request ${label}`]: added(check.coordinator, [
      ...raw.coordinator,
      ...messaging.coordinator,
    ]),
  };
}

/**
 * The run's figures as bench/results/turn-coordinator.json and a chart of the three targets'
 * p50 and p99 at each rate (turn-coordinator.svg); returns where they are.
 */
export function writeResults(result: BenchResult, channels: number): string {
  const at = new Date().toISOString();
  const dir = join(ROOT, 'bench', 'results');
  const ms = (key: string) => Number(result[key]);
  const panels: Panel[] = ['@200/s', '@1000/s'].flatMap((rate) =>
    ([50, 99] as const).map((q) => ({
      title: `p${q} ms ${rate} (lower is better)`,
      unit: '',
      bars: [
        { label: 'raw echo', value: ms(`raw echo p${q} ms ${rate}`) },
        { label: 'messaging', value: ms(`messaging echo p${q} ms ${rate}`) },
        { label: 'check-turn', value: ms(`check-turn p${q} ms ${rate}`) },
      ],
    })),
  );
  const ratios = ['@200/s', '@1000/s']
    .map((rate) => {
      const r = (q: number) => result[`check-turn/raw p${q} ${rate}`];
      return `${rate}: p50 ${r(50)}×, p99 ${r(99)}×`;
    })
    .join(' · ');
  const svg = barChart({
    title: `check-turn next to a raw @nats-io echo, ${channels} channels (${at})`,
    panels,
    colours: { 'raw echo': '#8a8f98', messaging: '#d9822b', 'check-turn': '#2f6fdf' },
    footer: `check-turn/raw ${ratios} (targets p50 ≤ 1.5×, p99 ≤ 2×) · servers: ${result.servers}`,
    panelWidth: 300,
  });
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'turn-coordinator.json');
  const chartFile = join(dir, 'turn-coordinator.svg');
  writeFileSync(json, `${JSON.stringify({ at, ...result }, null, 2)}\n`);
  writeFileSync(chartFile, `${svg}\n`);
  return `${json}, ${chartFile}`;
}
