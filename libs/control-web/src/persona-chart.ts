import { lineChartSvg } from './line-chart';

/** One point of the chart: a persona version and its disposition weights. */
export interface WeightPoint {
  version: number;
  at: string;
  dispositionWeights: Record<string, number>;
}

/**
 * A persona's disposition weights over its versions as an SVG line chart (one line per
 * disposition that ever had a weight; absent means 1), each point with a tooltip.
 *
 * @example
 * weightsChartSvg([{ version: 1, at, dispositionWeights: {} }, { version: 2, at, dispositionWeights: { x: 1.05 } }]);
 */
export function weightsChartSvg(points: readonly WeightPoint[]): string {
  const ids = [...new Set(points.flatMap((p) => Object.keys(p.dispositionWeights)))].sort();
  if (!ids.length || points.length < 1) {
    return '<p class="muted" id="persona-chart-empty">No disposition weight has moved yet.</p>';
  }
  return lineChartSvg({
    id: 'persona-chart',
    label: 'Disposition weights by persona version',
    yKeep: [1],
    xTicks: points.flatMap((p, i) =>
      points.length <= 12 || i % Math.ceil(points.length / 12) === 0
        ? [{ x: i, text: `v${p.version}` }]
        : [],
    ),
    series: ids.map((id) => ({
      name: id,
      points: points.map((p, i) => {
        const w = p.dispositionWeights[id] ?? 1;
        return {
          x: i,
          y: w,
          title: `${id}: ${w.toFixed(3)} at v${p.version} (${p.at.slice(0, 19).replace('T', ' ')})`,
        };
      }),
    })),
  });
}
