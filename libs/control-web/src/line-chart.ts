import { esc } from './html';

const W = 640;
const H = 220;
const PAD = { left: 44, right: 150, top: 14, bottom: 28 };
const COLORS = ['#2563eb', '#15803d', '#dc2626', '#7c3aed', '#ca8a04', '#0891b2', '#db2777'];

/** One line of a chart: its name (legend, `data-disposition`) and its points with tooltips. */
export interface ChartSeries {
  name: string;
  points: { x: number; y: number; title: string }[];
}

export interface LineChart {
  id: string;
  label: string;
  series: ChartSeries[];
  /** Labels under the x axis at their x. */
  xTicks: { x: number; text: string }[];
  /** Values the y axis always shows (the range grows to hold them). */
  yKeep?: number[];
}

/**
 * A line chart as inline SVG drawn by us (no library, no network): one polyline per series
 * with a dot per point (its tooltip a `<title>`), three y grid lines, x ticks and a legend.
 * A series is a `<g data-disposition="name">`.
 */
export function lineChartSvg(c: LineChart): string {
  const all = c.series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const ys = [...all.map((p) => p.y), ...(c.yKeep ?? [])];
  let [lo, hi] = [Math.min(...ys), Math.max(...ys)];
  if (hi - lo < 0.1) [lo, hi] = [lo - 0.05, hi + 0.05];
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (v: number) => PAD.left + (x1 === x0 ? plotW / 2 : ((v - x0) / (x1 - x0)) * plotW);
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * plotH;
  const f = (n: number) => n.toFixed(1);
  const axis = [lo, (lo + hi) / 2, hi]
    .map(
      (v) =>
        `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${f(y(v))}" y2="${f(y(v))}" stroke="#e5e7eb"/><text x="${PAD.left - 6}" y="${f(y(v) + 4)}" text-anchor="end" font-size="11" fill="#6b7280">${v.toFixed(2)}</text>`,
    )
    .join('');
  const ticks = c.xTicks
    .map(
      (t) =>
        `<text x="${f(x(t.x))}" y="${H - 8}" text-anchor="middle" font-size="11" fill="#6b7280">${esc(t.text)}</text>`,
    )
    .join('');
  const lines = c.series
    .map((s, k) => {
      const color = COLORS[k % COLORS.length];
      const pts = s.points.map((p) => [f(x(p.x)), f(y(p.y)), p.title] as const);
      const dots = pts
        .map(
          ([a, b, title]) =>
            `<circle cx="${a}" cy="${b}" r="3" fill="${color}"><title>${esc(title)}</title></circle>`,
        )
        .join('');
      const legendY = PAD.top + 14 * k + 4;
      return `<g data-disposition="${esc(s.name)}"><polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([a, b]) => `${a},${b}`).join(' ')}"/>${dots}<rect x="${W - PAD.right + 12}" y="${legendY - 8}" width="10" height="10" fill="${color}"/><text x="${W - PAD.right + 26}" y="${legendY + 1}" font-size="11">${esc(s.name)}</text></g>`;
    })
    .join('');
  return `<svg id="${esc(c.id)}" role="img" aria-label="${esc(c.label)}" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px" xmlns="http://www.w3.org/2000/svg">${axis}${ticks}${lines}</svg>`;
}
