import type { ContextClass, LearningHistoryResult } from '@dirigent/contracts';
import { effectiveWeight } from '@dirigent/router-domain';
import { lineChartSvg } from './line-chart';

/** A tick's time: to the second within a day, else the day and minute. */
const stamp = (ms: number, span: number) =>
  span < 86_400_000
    ? new Date(ms).toISOString().slice(11, 19)
    : new Date(ms).toISOString().slice(5, 16).replace('T', ' ');

/**
 * The learned (effective) weight of each disposition over time in one context class, from
 * the guild's `learning.adjusted` steps: a line per disposition that moved, starting from
 * the weight before its first step, a dot per step with its signal and delta.
 */
export function learnedWeightsSvg(h: LearningHistoryResult, cls: ContextClass): string {
  const steps = h.steps.filter((s) => s.contextClass === cls);
  if (!steps.length) {
    return `<p class="muted" id="learning-chart-${cls}-empty">No step in ${cls} yet.</p>`;
  }
  const ids = [...new Set(steps.map((s) => s.dispositionId))].sort();
  const times = steps.map((s) => Date.parse(s.at));
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const series = ids.map((id) => {
    const own = steps.filter((s) => s.dispositionId === id);
    const first = own[0];
    const before = effectiveWeight(h.baseline[id] ?? 1, first.adjustment - first.delta, h.bounds);
    return {
      name: id,
      points: [
        { x: t0, y: before, title: `${id}: ${before.toFixed(3)} before learning moved it` },
        ...own.map((s) => ({
          x: Date.parse(s.at),
          y: s.effective,
          title: `${id}: ${s.effective.toFixed(3)} at ${s.at.slice(0, 19).replace('T', ' ')} (${s.signal} ${s.delta > 0 ? '+' : ''}${s.delta.toFixed(3)})`,
        })),
      ],
    };
  });
  const ticks = t1 === t0 ? [t0] : [t0, t0 + (t1 - t0) / 2, t1];
  return lineChartSvg({
    id: `learning-chart-${cls}`,
    label: `Learned weights over time in ${cls}`,
    series,
    xTicks: ticks.map((t) => ({ x: t, text: stamp(t, t1 - t0) })),
    yKeep: [...ids.map((id) => h.baseline[id] ?? 1)],
  });
}
