import type { LensSection, WeightedItem } from './lenses/lens';
import type { MemoryItem, MemoryLayer } from './types';
import { countTokens } from './tokens';

const HEADINGS: Record<MemoryLayer, string> = {
  live: '## Live transcript',
  archive: '## From the archive',
  highlights: '## Highlights (verbatim)',
  epochs: '## Earlier conversations',
  lore: '## Group lore',
  dossiers: '## People',
};

const minute = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ');

/** One line of context for an item; message text is kept verbatim. */
export function renderItem(item: MemoryItem): string {
  const who = item.authorName ?? item.authorId ?? '';
  const where = item.channelId ? `#${item.channelId}` : '';
  const landed =
    (item.reactionCount ?? 0) + (item.replyCount ?? 0) > 0
      ? ` [${item.reactionCount ?? 0} reactions, ${item.replyCount ?? 0} replies]`
      : '';
  switch (item.layer) {
    case 'live':
      return `[${where}] ${who}: ${item.text}${landed}`;
    case 'archive':
    case 'highlights':
      return `[${where} ${minute(item.at)}] ${who}: ${item.text}${landed}`;
    case 'epochs':
      return `[${where} until ${minute(item.at)}] ${item.text}`;
    case 'dossiers':
      return `${who}: ${item.text}`;
    case 'lore':
      return `- ${item.text}`;
    default: {
      const never: never = item.layer;
      return never;
    }
  }
}

export interface AssembledContext {
  sections: { layer: MemoryLayer; items: MemoryItem[] }[];
  text: string;
  tokens: number;
}

/**
 * Fits a lens's sections into `maxTokens`: the heaviest items are kept first (a section's
 * heading counts once it has an item), then everything is shown in the lens's order.
 * `tokens` is the count of `text`, never more than `maxTokens`.
 *
 * @example
 * assembleContext(await liveLens.assemble(req, memory), 1500).text
 */
export function assembleContext(sections: LensSection[], maxTokens: number): AssembledContext {
  const lines = sections.map((s) => s.items.map((it) => renderItem(it)));
  const costs = lines.map((ls) => ls.map((l) => countTokens(l)));
  const headingCost = sections.map((s) => countTokens(HEADINGS[s.layer]));
  const order: { s: number; i: number; weight: number }[] = [];
  sections.forEach((sec, s) =>
    sec.items.forEach((it, i) => order.push({ s, i, weight: it.weight })),
  );
  order.sort((a, b) => b.weight - a.weight || a.s - b.s || a.i - b.i);

  const kept = sections.map(() => new Set<number>());
  let used = 0;
  for (const { s, i } of order) {
    const cost = costs[s][i] + (kept[s].size === 0 ? headingCost[s] : 0);
    if (used + cost > maxTokens) continue;
    kept[s].add(i);
    used += cost;
  }

  const out: AssembledContext['sections'] = [];
  const text: string[] = [];
  sections.forEach((sec, s) => {
    if (kept[s].size === 0) return;
    const items: MemoryItem[] = [];
    text.push(HEADINGS[sec.layer]);
    sec.items.forEach((it, i) => {
      if (!kept[s].has(i)) return;
      const { weight: _weight, ...plain } = it as WeightedItem;
      items.push(plain);
      text.push(lines[s][i]);
    });
    out.push({ layer: sec.layer, items });
  });
  const joined = text.join('\n');
  return { sections: out, text: joined, tokens: countTokens(joined) };
}
