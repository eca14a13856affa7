import { esc } from './html';

const W = 640;
const H = 220;
const PAD = { left: 44, right: 150, top: 14, bottom: 28 };
const COLORS = ['#2563eb', '#15803d', '#dc2626', '#7c3aed', '#ca8a04', '#0891b2', '#db2777'];

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
  const weights = points.flatMap((p) => ids.map((id) => p.dispositionWeights[id] ?? 1));
  let lo = Math.min(...weights, 1);
  let hi = Math.max(...weights, 1);
  if (hi - lo < 0.1) [lo, hi] = [lo - 0.05, hi + 0.05];
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) =>
    PAD.left + (points.length === 1 ? plotW / 2 : (i / (points.length - 1)) * plotW);
  const y = (w: number) => PAD.top + (1 - (w - lo) / (hi - lo)) * plotH;
  const f = (n: number) => n.toFixed(1);
  const axis = [lo, (lo + hi) / 2, hi]
    .map(
      (v) =>
        `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${f(y(v))}" y2="${f(y(v))}" stroke="#e5e7eb"/><text x="${PAD.left - 6}" y="${f(y(v) + 4)}" text-anchor="end" font-size="11" fill="#6b7280">${v.toFixed(2)}</text>`,
    )
    .join('');
  const xLabels = points
    .map((p, i) =>
      points.length <= 12 || i % Math.ceil(points.length / 12) === 0
        ? `<text x="${f(x(i))}" y="${H - 8}" text-anchor="middle" font-size="11" fill="#6b7280">v${p.version}</text>`
        : '',
    )
    .join('');
  const lines = ids
    .map((id, k) => {
      const color = COLORS[k % COLORS.length];
      const coords = points.map((p, i) => [x(i), y(p.dispositionWeights[id] ?? 1)] as const);
      const dots = points
        .map(
          (p, i) =>
            `<circle cx="${f(coords[i][0])}" cy="${f(coords[i][1])}" r="3" fill="${color}"><title>${esc(`${id}: ${(p.dispositionWeights[id] ?? 1).toFixed(3)} at v${p.version} (${p.at.slice(0, 19).replace('T', ' ')})`)}</title></circle>`,
        )
        .join('');
      const legendY = PAD.top + 14 * k + 4;
      return `<g data-disposition="${esc(id)}"><polyline fill="none" stroke="${color}" stroke-width="2" points="${coords.map(([a, b]) => `${f(a)},${f(b)}`).join(' ')}"/>${dots}<rect x="${W - PAD.right + 12}" y="${legendY - 8}" width="10" height="10" fill="${color}"/><text x="${W - PAD.right + 26}" y="${legendY + 1}" font-size="11">${esc(id)}</text></g>`;
    })
    .join('');
  return `<svg id="persona-chart" role="img" aria-label="Disposition weights by persona version" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px" xmlns="http://www.w3.org/2000/svg">${axis}${xLabels}${lines}</svg>`;
}
