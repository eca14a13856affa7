/** A bar in a panel of {@link barChart}. */
export interface Bar {
  label: string;
  value: number;
}

/** One panel: its bars side by side on a scale of their own. */
export interface Panel {
  title: string;
  /** Printed after each bar's value, e.g. ' ms'. */
  unit: string;
  bars: Bar[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * An SVG bar chart of panels side by side, a title above and a footer line below (the
 * benches' results in bench/results/; no chart library). `colours` by bar label.
 */
export function barChart(opts: {
  title: string;
  panels: Panel[];
  colours: Record<string, string>;
  footer: string;
  panelWidth?: number;
  height?: number;
}): string {
  const pw = opts.panelWidth ?? 380;
  const H = opts.height ?? 360;
  const W = pw * opts.panels.length;
  const parts: string[] = [];
  opts.panels.forEach((panel, i) => {
    const x0 = i * pw + 30;
    const top = 70;
    const bottom = H - 50;
    const max = Math.max(...panel.bars.map((b) => b.value), 1e-9);
    const bw = Math.min(80, (pw - 60) / panel.bars.length - 20);
    parts.push(
      `<text x="${x0}" y="50" font-size="14" font-weight="bold">${esc(panel.title)}</text>`,
      `<line x1="${x0}" y1="${bottom}" x2="${x0 + pw - 60}" y2="${bottom}" stroke="#444"/>`,
    );
    panel.bars.forEach((b, j) => {
      const h = ((bottom - top) * b.value) / max;
      const x = x0 + 20 + j * (bw + 20);
      const v = b.value >= 100 ? Math.round(b.value).toString() : b.value.toFixed(2);
      parts.push(
        `<rect x="${x}" y="${bottom - h}" width="${bw}" height="${h}" fill="${opts.colours[b.label]}"/>`,
        `<text x="${x + bw / 2}" y="${bottom - h - 6}" font-size="12" text-anchor="middle">${v}${panel.unit}</text>`,
        `<text x="${x + bw / 2}" y="${bottom + 18}" font-size="12" text-anchor="middle">${esc(b.label)}</text>`,
      );
    });
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="30" y="24" font-size="16" font-weight="bold">${esc(opts.title)}</text>`,
    ...parts,
    `<text x="30" y="${H - 12}" font-size="12" fill="#333">${esc(opts.footer)}</text>`,
    `</svg>`,
  ].join('\n');
}
