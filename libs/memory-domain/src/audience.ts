import { assembleContext, type AssembledContext } from './assemble';
import type { Lens, LensRequest, LensSection, MemoryReader } from './lenses/lens';
import type { MemoryItem } from './types';

/** What memory knows of a channel's audience (from `message.created` and `channel.updated`). */
export interface ChannelAudience {
  channelId: string;
  audience: 'public' | 'private';
  /** A thread's parent: the thread has its audience, and shares its content. */
  parentChannelId?: string;
}

/** Channels whose content must not be shown in a target channel, by id. */
export type HiddenChannels = ReadonlySet<string>;

const rootOf = (c: { channelId: string; parentChannelId?: string }) =>
  c.parentChannelId ?? c.channelId;

/**
 * The channels a read made to answer in `targetChannelId` may not show: every private
 * channel other than the target's own, with their threads (a thread and its parent are one
 * place, and a thread has its parent's audience). A channel memory knows nothing of is
 * public: its messages carried no audience. The channels' current audiences decide, so a
 * channel made private hides its past from then on.
 *
 * @example
 * hiddenFrom('general', [{ channelId: 'mod', audience: 'private' }]) // Set { 'mod' }
 */
export function hiddenFrom(
  targetChannelId: string,
  channels: readonly ChannelAudience[],
): Set<string> {
  const target = channels.find((c) => c.channelId === targetChannelId);
  const home = target ? rootOf(target) : targetChannelId;
  const privateRoots = new Set(channels.filter((c) => c.audience === 'private').map(rootOf));
  const hidden = new Set<string>();
  for (const c of channels) {
    const root = rootOf(c);
    if (root !== home && privateRoots.has(root)) hidden.add(c.channelId);
  }
  for (const root of privateRoots) if (root !== home) hidden.add(root);
  return hidden;
}

/** The channels an item was made from: its own sources, else its channel. */
export function sourcesOf(item: Pick<MemoryItem, 'channelId' | 'sourceChannelIds'>): string[] {
  if (item.sourceChannelIds?.length) return item.sourceChannelIds;
  return item.channelId ? [item.channelId] : [];
}

/** Whether an item may be shown where `hidden` applies: none of its sources is hidden. */
export function visibleWith(
  hidden: HiddenChannels,
  item: Pick<MemoryItem, 'channelId' | 'sourceChannelIds'>,
): boolean {
  if (!hidden.size) return true;
  return sourcesOf(item).every((c) => !hidden.has(c));
}

/** The sections with every item the target may not show left out. */
export function visibleSections(hidden: HiddenChannels, sections: LensSection[]): LensSection[] {
  if (!hidden.size) return sections;
  return sections.map((s) => ({ ...s, items: s.items.filter((i) => visibleWith(hidden, i)) }));
}

/**
 * A reader that answers for one audience: each read is passed `hiddenChannelIds` (so the
 * store filters before its limits) and its answer is filtered again here, so a store that
 * ignores the hint still shows nothing a channel's audience may not see.
 *
 * @example
 * lens.assemble(req, audienceScoped(reader, hiddenFrom(req.channelId, channels)))
 */
export function audienceScoped(reader: MemoryReader, hidden: HiddenChannels): MemoryReader {
  const keep = <T extends MemoryItem>(items: T[]) =>
    hidden.size ? items.filter((i) => visibleWith(hidden, i)) : items;
  const scope = { hiddenChannelIds: hidden };
  return {
    recent: async (g, q) => keep(await reader.recent(g, { ...q, ...scope })),
    search: async (g, query, q) => keep(await reader.search(g, query, { ...q, ...scope })),
    dossiers: async (g, userIds) => keep(await reader.dossiers(g, userIds, scope)),
    lore: async (g, limit) => keep(await reader.lore(g, limit, scope)),
    epochs: async (g, q) => keep(await reader.epochs(g, { ...q, ...scope })),
    highlights: async (g, q) => keep(await reader.highlights(g, { ...q, ...scope })),
    sample: async (g, q) => keep(await reader.sample(g, { ...q, ...scope })),
  };
}

/**
 * A context for one target channel, whole: the lens reads through a reader scoped to the
 * target's audience, and the assembled sections are filtered again before they are fitted.
 *
 * @example
 * await contextFor(liveLens, req, reader, channels, 2000) // never a hidden channel's item
 */
export async function contextFor(
  lens: Lens,
  req: LensRequest,
  reader: MemoryReader,
  channels: readonly ChannelAudience[] | HiddenChannels,
  maxTokens: number,
): Promise<AssembledContext> {
  const hidden = isHidden(channels) ? channels : hiddenFrom(req.channelId, channels);
  const sections = await lens.assemble(req, audienceScoped(reader, hidden));
  return assembleContext(visibleSections(hidden, sections), maxTokens);
}

const isHidden = (c: readonly ChannelAudience[] | HiddenChannels): c is HiddenChannels =>
  c instanceof Set;
