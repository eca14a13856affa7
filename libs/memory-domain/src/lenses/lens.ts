import type { MemoryItem, MemoryLayer, ScoredItem, SearchLayer } from '../types';

/**
 * Channels a read must leave out (the target channel's audience may not see them): an
 * item any of whose source channels is here is not returned. Absent: the admin view.
 */
export interface AudienceScope {
  hiddenChannelIds?: ReadonlySet<string>;
}

/**
 * The read side a lens assembles from; the memory service implements it over Postgres.
 * A lens is given one already scoped to its target's audience (`audienceScoped`).
 */
export interface MemoryReader {
  /** Archived messages, newest first. */
  recent(
    guildId: string,
    q: {
      limit: number;
      channelId?: string;
      excludeChannelId?: string;
      authorId?: string;
      authorIsBot?: boolean;
      since?: number;
      until?: number;
    } & AudienceScope,
  ): Promise<MemoryItem[]>;
  /** Hybrid search (full text, trigram, vectors, fused). */
  search(
    guildId: string,
    query: string,
    q: {
      k: number;
      layers?: SearchLayer[];
      channelId?: string;
      excludeChannelId?: string;
      authorId?: string;
    } & AudienceScope,
  ): Promise<ScoredItem[]>;
  dossiers(guildId: string, userIds: string[], scope?: AudienceScope): Promise<MemoryItem[]>;
  lore(guildId: string, limit: number, scope?: AudienceScope): Promise<MemoryItem[]>;
  /** Closed epochs, newest first. */
  epochs(
    guildId: string,
    q: { limit: number; channelId?: string } & AudienceScope,
  ): Promise<MemoryItem[]>;
  /** Highlights, strongest first. */
  highlights(
    guildId: string,
    q: { limit: number; kinds?: string[] } & AudienceScope,
  ): Promise<MemoryItem[]>;
  /** A reproducible random sample of the archive for `seed`. */
  sample(
    guildId: string,
    q: { limit: number; seed: number } & AudienceScope,
  ): Promise<MemoryItem[]>;
}

/** What a context request asks of a lens; time and seed arrive here, never from a clock. */
export interface LensRequest {
  guildId: string;
  channelId: string;
  presentUserIds: string[];
  focusUserId?: string;
  topic?: string;
  now: number;
  seed: number;
  /** The guild's live window (`DIRIGENT_LIVE_WINDOW`). */
  liveWindow: number;
}

/** An item with how much it matters: assembly drops the lowest weights first to fit. */
export interface WeightedItem extends MemoryItem {
  weight: number;
}

export interface LensSection {
  layer: MemoryLayer;
  /** In display order. */
  items: WeightedItem[];
}

/** One context strategy of the D.I.T. plan. A new lens is one new file and a registry line. */
export interface Lens {
  id: string;
  /** One line on what the synthesizer gets. */
  describe: string;
  assemble(req: LensRequest, memory: MemoryReader): Promise<LensSection[]>;
}
