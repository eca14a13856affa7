/** The memory layers; `live` is a view over the newest archive rows, not a table. */
export const MEMORY_LAYERS = [
  'live',
  'archive',
  'highlights',
  'epochs',
  'lore',
  'dossiers',
] as const;
export type MemoryLayer = (typeof MEMORY_LAYERS)[number];

/** The layers `Subjects.memory.search` can be asked for. */
export const SEARCH_LAYERS = ['archive', 'highlights', 'epochs', 'lore', 'dossiers'] as const;
export type SearchLayer = (typeof SEARCH_LAYERS)[number];

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
  /** Facts only: the window in which the fact held; `validUntil` unset while current. */
  validFrom?: number;
  validUntil?: number;
}

export interface ScoredItem extends MemoryItem {
  score: number;
}
