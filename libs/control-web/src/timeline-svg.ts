import { esc } from './html';
import type { TimelineItem } from './timeline';

const STEP = 26;
const LANE = 26;
const LEFT = 120;
const TOP = 22;

const COLORS = {
  granted: '#2563eb',
  real: '#15803d',
  empty: '#9ca3af',
  delivered: '#15803d',
  timeout: '#dc2626',
  cancelled: '#ea580c',
  dormant: '#6b7280',
  loop: '#b91c1c',
  woke: '#ca8a04',
  mode: '#7c3aed',
} as const;

function title(item: TimelineItem): string {
  const time = item.at.slice(11, 23);
  switch (item.kind) {
    case 'granted':
      return `${time} ${item.agentId} granted (cycle ${item.cycle}, ${item.reason})`;
    case 'completed':
      return `${time} ${item.agentId} completed: ${item.outcome}`;
    case 'delivered':
      return `${time} ${item.agentId} reply delivered${item.afterMs === null ? '' : ` after ${item.afterMs} ms`}`;
    case 'timeout':
      return `${time} ${item.agentId} delivery timed out after ${item.timeoutMs} ms`;
    case 'cancelled':
      return `${time} ${item.agentId} turn cancelled: ${item.reason}`;
    case 'dormant':
      return `${time} dormant (${item.reason})`;
    case 'loop-breaker':
      return `${time} loop breaker: ${item.cyclesWithoutHuman} cycles without a human`;
    case 'woke':
      return `${time} woke (by ${item.by})`;
    case 'mode':
      return `${time} mode ${item.from} → ${item.to}`;
    default: {
      const never: never = item;
      return never;
    }
  }
}

function mark(item: TimelineItem, x: number, y: number): string {
  const t = `<title>${esc(title(item))}</title>`;
  switch (item.kind) {
    case 'granted':
      return `<g class="tl-granted"><circle cx="${x}" cy="${y}" r="7" fill="none" stroke="${COLORS.granted}" stroke-width="2.5"/>${t}</g>`;
    case 'completed': {
      const c = item.outcome === 'real' ? COLORS.real : COLORS.empty;
      const fill = item.outcome === 'real' ? c : '#fff';
      return `<g class="tl-completed tl-${item.outcome}"><rect x="${x - 6}" y="${y - 6}" width="12" height="12" rx="2" fill="${fill}" stroke="${c}" stroke-width="2"/>${t}</g>`;
    }
    case 'delivered':
      return `<g class="tl-delivered"><path d="M${x - 6} ${y} l4 5 l8 -10" fill="none" stroke="${COLORS.delivered}" stroke-width="3"/>${t}</g>`;
    case 'timeout':
      return `<g class="tl-timeout"><path d="M${x} ${y - 8} L${x + 8} ${y + 6} L${x - 8} ${y + 6} Z" fill="${COLORS.timeout}"/>${t}</g>`;
    case 'cancelled':
      return `<g class="tl-cancelled"><path d="M${x - 6} ${y - 6} L${x + 6} ${y + 6} M${x + 6} ${y - 6} L${x - 6} ${y + 6}" stroke="${COLORS.cancelled}" stroke-width="3"/>${t}</g>`;
    case 'dormant':
      return `<g class="tl-dormant"><rect x="${x - 4}" y="${TOP - 10}" width="8" height="${y - TOP + 20}" fill="${COLORS.dormant}" opacity="0.35"/><text x="${x}" y="${y + 4}" text-anchor="middle" font-size="12">z</text>${t}</g>`;
    case 'loop-breaker':
      return `<g class="tl-loop-breaker"><rect x="${x - 4}" y="${TOP - 10}" width="8" height="${y - TOP + 20}" fill="${COLORS.loop}" opacity="0.35"/><circle cx="${x}" cy="${y}" r="7" fill="${COLORS.loop}"/>${t}</g>`;
    case 'woke':
      return `<g class="tl-woke"><circle cx="${x}" cy="${y}" r="6" fill="${COLORS.woke}"/>${t}</g>`;
    case 'mode':
      return `<g class="tl-mode"><rect x="${x - 6}" y="${y - 6}" width="12" height="12" transform="rotate(45 ${x} ${y})" fill="${COLORS.mode}"/>${t}</g>`;
    default: {
      const never: never = item;
      return never;
    }
  }
}

const short = (s: string) => (s.length > 16 ? `${s.slice(0, 15)}…` : s);

const agentOf = (item: TimelineItem): string | null => ('agentId' in item ? item.agentId : null);

/**
 * Draws a turn timeline as an SVG picture: one lane for the channel (mode, dormant, wake,
 * loop breaker) and one per agent, events left to right in order, each with a tooltip.
 *
 * @example
 * renderTimelineSvg(buildTimeline(commits), 'general');
 */
export function renderTimelineSvg(
  items: readonly TimelineItem[],
  label: string,
  names: ReadonlyMap<string, string> = new Map(),
): string {
  const agents: string[] = [];
  for (const item of items) {
    const a = agentOf(item);
    if (a && !agents.includes(a)) agents.push(a);
  }
  const lanes = ['channel', ...agents];
  const width = LEFT + Math.max(1, items.length) * STEP + STEP;
  const height = TOP + lanes.length * LANE + 8;
  const laneY = (name: string) => TOP + lanes.indexOf(name) * LANE + LANE / 2;
  const rows = lanes
    .map(
      (name, i) =>
        `<line x1="${LEFT - 8}" x2="${width}" y1="${laneY(name)}" y2="${laneY(name)}" stroke="#e5e7eb"/>` +
        `<text x="${LEFT - 12}" y="${laneY(name) + 4}" text-anchor="end" font-size="12" fill="${i === 0 ? '#6b7280' : '#111827'}">${esc(short(names.get(name) ?? name))}</text>`,
    )
    .join('');
  const marks = items
    .map((item, i) => mark(item, LEFT + STEP / 2 + i * STEP, laneY(agentOf(item) ?? 'channel')))
    .join('');
  const summary = items.length
    ? `${items.length} timeline events for ${label}`
    : `no turns yet in ${label}`;
  const empty = items.length
    ? ''
    : `<text x="${LEFT}" y="${laneY('channel') + 4}" font-size="12" fill="#6b7280">no turns yet</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" role="img" aria-label="${esc(summary)}" ` +
    `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<title>${esc(summary)}</title>${rows}${marks}${empty}</svg>`
  );
}

/** The legend shown under the timelines. */
export const TIMELINE_LEGEND = [
  ['granted', 'turn granted'],
  ['real', 'real reply'],
  ['empty', 'empty (NO_REPLY)'],
  ['delivered', 'delivery confirmed'],
  ['timeout', 'delivery timeout'],
  ['cancelled', 'turn cancelled'],
  ['dormant', 'dormant'],
  ['woke', 'woke'],
  ['loop', 'loop breaker'],
  ['mode', 'mode change'],
] as const;

export const TIMELINE_COLORS = COLORS;
