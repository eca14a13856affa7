import { MEMORY_SEARCH_LAYERS } from '@dirigent/contracts';

/** The layers `Subjects.memory.search` can be asked for: the wire's list (`@dirigent/contracts`). */
export {
  MEMORY_SEARCH_LAYERS as SEARCH_LAYERS,
  type MemorySearchLayer as SearchLayer,
} from '@dirigent/contracts';

/** The memory layers; `live` is a view over the newest archive rows, not a table. */
export const MEMORY_LAYERS = ['live', ...MEMORY_SEARCH_LAYERS] as const;
export type MemoryLayer = (typeof MEMORY_LAYERS)[number];

/** One remembered thing as a lens and the search see it. `at` is epoch milliseconds. */
export interface MemoryItem {
  layer: MemoryLayer;
  id: string;
  text: string;
  at: number;
  channelId?: string;
  authorId?: string;
  authorName?: string;
  messageId?: string;
  authorIsBot?: boolean;
  replyToMessageId?: string;
  reactionCount?: number;
  replyCount?: number;
  /**
   * The channels this item was made from when they are not just `channelId` (a dossier,
   * lore, a summary over several): it is shown only where every one of them may be.
   */
  sourceChannelIds?: string[];
  /** Facts only: the window in which the fact held; `validUntil` unset while current. */
  validFrom?: number;
  validUntil?: number;
}

export interface ScoredItem extends MemoryItem {
  score: number;
}
