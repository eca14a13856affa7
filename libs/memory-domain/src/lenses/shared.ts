import type { MemoryItem, MemoryLayer } from '../types';
import type { LensRequest, LensSection, MemoryReader, WeightedItem } from './lens';

/** Items in the given order, weighted from `top` (first) down to `top / 2` (last). */
export function ranked(layer: MemoryLayer, items: MemoryItem[], top = 1): LensSection {
  const n = items.length;
  return {
    layer,
    items: items.map((it, i) => ({ ...it, layer, weight: top * (1 - i / (2 * Math.max(n, 1))) })),
  };
}

/** Oldest first, for reading; weights untouched. */
export function chronological(items: WeightedItem[]): WeightedItem[] {
  return [...items].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
}

function uniqueById<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => (seen.has(i.id) ? false : (seen.add(i.id), true)));
}

/**
 * The guild's live transcript: its last `window` messages from every channel, plus more of
 * the current channel, oldest first. Newer and current-channel messages weigh more, so a
 * tight token budget keeps them and drops old chatter from elsewhere first.
 */
export async function liveSection(
  req: LensRequest,
  memory: MemoryReader,
  window = req.liveWindow,
): Promise<LensSection> {
  const [guild, here] = await Promise.all([
    memory.recent(req.guildId, { limit: window }),
    memory.recent(req.guildId, { limit: Math.ceil(window / 2), channelId: req.channelId }),
  ]);
  const all = uniqueById([...guild, ...here]).sort((a, b) => b.at - a.at);
  const items = all.slice(0, window).map((it, i) => ({
    ...it,
    layer: 'live' as const,
    weight: 1 - i / (2 * window) + (it.channelId === req.channelId ? 0.5 : 0),
  }));
  return { layer: 'live', items: chronological(items) };
}

/** The current channel's last `n` messages, oldest first. */
export async function narrowLive(
  req: LensRequest,
  memory: MemoryReader,
  n = 5,
  top = 1,
): Promise<LensSection> {
  const items = await memory.recent(req.guildId, { limit: n, channelId: req.channelId });
  const section = ranked('live', items, top);
  return { layer: 'live', items: chronological(section.items) };
}

/** What the conversation is about: the request's topic, else the channel's last few messages. */
export async function topicOf(req: LensRequest, memory: MemoryReader): Promise<string> {
  if (req.topic?.trim()) return req.topic.trim();
  const last = await memory.recent(req.guildId, { limit: 3, channelId: req.channelId });
  return last.map((m) => m.text).join(' ');
}

/** Dossiers of the users present (or, without a list, of the live window's authors). */
export async function dossiersFor(
  req: LensRequest,
  memory: MemoryReader,
  live: LensSection | null,
  top = 0.8,
): Promise<LensSection> {
  const ids = req.presentUserIds.length
    ? req.presentUserIds
    : [...new Set((live?.items ?? []).map((i) => i.authorId).filter((a): a is string => !!a))];
  const items = ids.length ? await memory.dossiers(req.guildId, ids.slice(0, 20)) : [];
  return ranked('dossiers', items, top);
}

/**
 * {@link dossiersFor} beside the live section's read: the people present are known
 * without it, so only a request that names nobody waits for the live window's authors.
 */
export function dossiersBeside(
  req: LensRequest,
  memory: MemoryReader,
  live: Promise<LensSection>,
  top = 0.8,
): Promise<LensSection> {
  return req.presentUserIds.length
    ? dossiersFor(req, memory, null, top)
    : live.then((l) => dossiersFor(req, memory, l, top));
}

export async function loreSection(memory: MemoryReader, guildId: string, top = 0.7) {
  return ranked('lore', await memory.lore(guildId, 10), top);
}

/** Search hits of one layer set, best first, as a section of their own layer(s). */
export function hitsByLayer(items: MemoryItem[], top: number): LensSection[] {
  const byLayer = new Map<MemoryLayer, MemoryItem[]>();
  for (const it of items) byLayer.set(it.layer, [...(byLayer.get(it.layer) ?? []), it]);
  return [...byLayer].map(([layer, list]) => ranked(layer, list, top));
}

export const nonEmpty = (sections: LensSection[]) => sections.filter((s) => s.items.length > 0);

/** Search on the conversation's topic; nothing when there is no topic yet. */
export async function searchTopic(
  req: LensRequest,
  memory: MemoryReader,
  q: Parameters<MemoryReader['search']>[2],
) {
  const topic = await topicOf(req, memory);
  return topic ? memory.search(req.guildId, topic, q) : [];
}
