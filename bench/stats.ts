/** Percentile of a sample (nearest-rank), in the sample's unit. */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Milliseconds since `start` (a `process.hrtime.bigint()`). */
export const msSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

export const round = (n: number, digits = 3) => Number(n.toFixed(digits));

export type BenchResult = Record<string, string | number>;
