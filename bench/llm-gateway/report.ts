import { barChart, type Panel } from '../chart';
import { percentile, round, type BenchResult } from '../stats';
import { PORTKEY_VERSION } from './processes';
import { WARMUP, type Phase } from './workers';

const median = (xs: number[]) => percentile(xs, 50);

export interface Side {
  p50: number;
  p99: number;
  rps: number;
  /** The gateway process's CPU (user + system, all threads) per request, µs: 50-client phases. */
  cpuUs?: number;
}
/** A phase's figures; `cpuMs`, the gateway's CPU over it, is spread over its requests and warm-up. */
export const side = (p: Phase, cpuMs?: number): Side => ({
  p50: percentile(p.latencies, 50),
  p99: percentile(p.latencies, 99),
  rps: p.rps,
  ...(cpuMs ? { cpuUs: (cpuMs * 1000) / (p.latencies.length + WARMUP) } : {}),
});

/** One round's phases; `baseline*` only with `LLM_BENCH_BASELINE` (another build of Dirigent). */
export interface Round {
  direct1: Side;
  dirigent1: Side;
  baseline1?: Side;
  portkey1?: Side;
  direct50: Side;
  dirigent50: Side;
  baseline50?: Side;
  portkey50?: Side;
}

/** The medians over the rounds, and each round's figures. */
export interface Summary extends Round {
  at: string;
  rounds: number;
  phaseMs: number;
  portkey: string;
  /** `uptime`'s load averages (1, 5, 15 min) at the start and at the end of the run. */
  load: { start: number[]; end: number[] };
  addedP50: { dirigent: number; portkey?: number; baseline?: number };
  ratios: {
    /** Dirigent's requests/s at 50 clients over the upstream's direct ones (goal ≥ 0.5). */
    shareOfDirect50: number;
    /** Dirigent's p99 at 50 clients minus the direct p99, ms (goal ≤ 10). */
    addedP99at50: number;
    baselineShareOfDirect50?: number;
    throughput50?: number;
    addedP50at1?: number;
    baselineThroughput50?: number;
    baselineAddedP50at1?: number;
  };
  perRound: Round[];
}

function medianSide(sides: Side[]): Side {
  const cpu = sides.map((s) => s.cpuUs);
  return {
    p50: median(sides.map((s) => s.p50)),
    p99: median(sides.map((s) => s.p99)),
    rps: median(sides.map((s) => s.rps)),
    ...(cpu.every((c) => c !== undefined) ? { cpuUs: median(cpu as number[]) } : {}),
  };
}

/** `a`'s added p50 at 1 client over `b`'s, each over the same round's direct p50. */
const addedRatio = (r: Round, a: Side, b: Side) =>
  (a.p50 - r.direct1.p50) / Math.max(1e-3, b.p50 - r.direct1.p50);

export function summarize(
  rounds: Round[],
  meta: Pick<Summary, 'at' | 'phaseMs' | 'portkey' | 'load'>,
): Summary {
  const pick = (k: keyof Round) =>
    rounds.every((x) => x[k]) ? medianSide(rounds.map((x) => x[k]!)) : undefined;
  const added = (k: 'dirigent1' | 'portkey1' | 'baseline1') =>
    rounds.every((x) => x[k]) ? median(rounds.map((x) => x[k]!.p50 - x.direct1.p50)) : undefined;
  const ratio = (f: (r: Round) => number | undefined) => {
    const xs = rounds.map(f);
    return xs.every((x) => x !== undefined) ? median(xs as number[]) : undefined;
  };
  return {
    ...meta,
    rounds: rounds.length,
    direct1: pick('direct1')!,
    dirigent1: pick('dirigent1')!,
    baseline1: pick('baseline1'),
    portkey1: pick('portkey1'),
    direct50: pick('direct50')!,
    dirigent50: pick('dirigent50')!,
    baseline50: pick('baseline50'),
    portkey50: pick('portkey50'),
    addedP50: {
      dirigent: added('dirigent1')!,
      portkey: added('portkey1'),
      baseline: added('baseline1'),
    },
    ratios: {
      shareOfDirect50: ratio((r) => r.dirigent50.rps / r.direct50.rps)!,
      addedP99at50: ratio((r) => r.dirigent50.p99 - r.direct50.p99)!,
      baselineShareOfDirect50: ratio((r) => r.baseline50 && r.baseline50.rps / r.direct50.rps),
      throughput50: ratio((r) => r.portkey50 && r.dirigent50.rps / r.portkey50.rps),
      addedP50at1: ratio((r) => r.portkey1 && addedRatio(r, r.dirigent1, r.portkey1)),
      baselineThroughput50: ratio(
        (r) => r.portkey50 && r.baseline50 && r.baseline50.rps / r.portkey50.rps,
      ),
      baselineAddedP50at1: ratio(
        (r) => r.portkey1 && r.baseline1 && addedRatio(r, r.baseline1, r.portkey1),
      ),
    },
    perRound: rounds,
  };
}

/** The printed table of a summary. */
export function resultTable(summary: Summary, note?: string): BenchResult {
  const result: BenchResult = {};
  const ms = (s: Side) => `${round(s.p50)} / ${round(s.p99)}`;
  result['load average at start / end'] =
    `${summary.load.start.join(' ')} / ${summary.load.end.join(' ')}`;
  result['direct p50/p99 ms @1'] = ms(summary.direct1);
  result['Dirigent p50/p99 ms @1'] = ms(summary.dirigent1);
  if (summary.portkey1) result['Portkey p50/p99 ms @1'] = ms(summary.portkey1);
  result['Dirigent added p50 ms @1 (target ≤ 0.25)'] = round(summary.addedP50.dirigent);
  if (summary.addedP50.portkey !== undefined)
    result['Portkey added p50 ms @1'] = round(summary.addedP50.portkey);
  result['direct requests/s @50'] = Math.round(summary.direct50.rps);
  result['Dirigent requests/s @50 (one guild)'] = Math.round(summary.dirigent50.rps);
  result['Dirigent p50/p99 ms @50'] = ms(summary.dirigent50);
  result['Dirigent requests/s @50 / direct (median ratio, target ≥ 0.5)'] = round(
    summary.ratios.shareOfDirect50,
    2,
  );
  result['Dirigent added p99 ms @50 (median, target ≤ 10)'] = round(summary.ratios.addedP99at50);
  if (summary.dirigent50.cpuUs !== undefined)
    result['Dirigent gateway CPU µs/request @50'] = Math.round(summary.dirigent50.cpuUs);
  if (summary.portkey50) {
    result['Portkey requests/s @50'] = Math.round(summary.portkey50.rps);
    result['Portkey p50/p99 ms @50'] = ms(summary.portkey50);
    if (summary.portkey50.cpuUs !== undefined)
      result['Portkey gateway CPU µs/request @50'] = Math.round(summary.portkey50.cpuUs);
    result['throughput Dirigent/Portkey @50 (median ratio, target ≥ 2)'] = round(
      summary.ratios.throughput50!,
      2,
    );
    result['added p50 Dirigent/Portkey @1 (median ratio, target ≤ 0.5)'] = round(
      summary.ratios.addedP50at1!,
      2,
    );
  } else result['Portkey'] = note ?? 'skipped';
  if (summary.baseline1 && summary.baseline50) {
    result['baseline added p50 ms @1'] = round(summary.addedP50.baseline!);
    result['baseline requests/s @50'] = Math.round(summary.baseline50.rps);
    if (summary.ratios.baselineShareOfDirect50 !== undefined)
      result['baseline requests/s @50 / direct'] = round(summary.ratios.baselineShareOfDirect50, 2);
    if (summary.baseline50.cpuUs !== undefined)
      result['baseline gateway CPU µs/request @50'] = Math.round(summary.baseline50.cpuUs);
    if (summary.ratios.baselineAddedP50at1 !== undefined) {
      result['baseline throughput/Portkey @50'] = round(summary.ratios.baselineThroughput50!, 2);
      result['baseline added p50/Portkey @1'] = round(summary.ratios.baselineAddedP50at1, 2);
    }
  }
  return result;
}

/** The figures of one comparison as an SVG bar chart. */
export function chart(summary: Summary): string {
  const panels: Panel[] = [
    {
      title: 'requests/s at 50 clients (higher is better)',
      unit: '/s',
      bars: [
        { label: 'Dirigent', value: summary.dirigent50.rps },
        ...(summary.portkey50 ? [{ label: 'Portkey', value: summary.portkey50.rps }] : []),
        { label: 'direct', value: summary.direct50.rps },
      ],
    },
    {
      title: 'added p50 latency at 1 client (lower is better)',
      unit: ' ms',
      bars: [
        { label: 'Dirigent', value: summary.addedP50.dirigent },
        ...(summary.addedP50.portkey !== undefined
          ? [{ label: 'Portkey', value: summary.addedP50.portkey }]
          : []),
      ],
    },
  ];
  const ratio = (r: number | undefined, what: string) =>
    r === undefined ? `${what}: Portkey not measured` : `${what}: ${r.toFixed(2)}×`;
  return barChart({
    title: `Model gateway vs Portkey ${PORTKEY_VERSION}, same fake OpenAI upstream (${summary.at})`,
    panels,
    colours: { Dirigent: '#2f6fdf', Portkey: '#d9822b', direct: '#8a8f98' },
    footer: `${ratio(summary.ratios.throughput50, 'throughput Dirigent/Portkey @50')} · ${ratio(summary.ratios.addedP50at1, 'added p50 Dirigent/Portkey @1')} · median of ${summary.rounds} same-run rounds · load ${summary.load.start[0]}`,
  });
}
