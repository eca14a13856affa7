import { Logger } from '@nestjs/common';
import type { MemoryHighlight, MemoryHit } from '@dirigent/contracts';

/** How many of an archived channel's moments memory is asked to keep (and the post quotes). */
export const ARCHIVE_HIGHLIGHTS = 5;

/** What an archive asks of memory (`Subjects.memory.search`, `Subjects.memory.highlightAdd`). */
export abstract class ArchiveMemory {
  /** The channel's highlights and messages nearest `about`, for that channel's audience. */
  abstract search(
    guildId: string,
    channelId: string,
    about: string,
    k: number,
  ): Promise<MemoryHit[]>;
  /** Keeps the message verbatim in memory's highlight layer (a second time changes nothing). */
  abstract keep(guildId: string, channelId: string, messageId: string): Promise<MemoryHighlight>;
}

/** One moment kept of an archived channel. */
export interface KeptHighlight {
  messageId?: string;
  text: string;
  authorName?: string | null;
}

/**
 * An archived channel's highlights, kept in memory before it closes: the highlights memory
 * already holds of it and its messages nearest what it was about, each kept verbatim in the
 * highlight layer (`manual`), so that recall finds them after the channel is read-only.
 * Memory not answering loses nothing (its archive stays); the channel is archived without
 * the quotes.
 */
export class ArchiveHighlights {
  private readonly log = new Logger('router:steward');

  constructor(private readonly memory: ArchiveMemory) {}

  async keep(guildId: string, channelId: string, about: string): Promise<KeptHighlight[]> {
    let hits: MemoryHit[];
    try {
      hits = await this.memory.search(guildId, channelId, about, ARCHIVE_HIGHLIGHTS);
    } catch (e) {
      this.log.warn({ guildId, channelId, err: (e as Error).message }, 'highlights not read');
      return [];
    }
    const kept: KeptHighlight[] = [];
    const seen = new Set<string>();
    for (const h of hits.filter((x) => x.layer === 'highlights' || x.layer === 'archive')) {
      if (h.messageId && seen.has(h.messageId)) continue;
      if (h.messageId) seen.add(h.messageId);
      if (h.layer === 'archive' && h.messageId) {
        const added = await this.memory
          .keep(guildId, channelId, h.messageId)
          .catch(() => undefined);
        if (added) {
          kept.push({ messageId: h.messageId, text: added.rawText, authorName: added.authorName });
          continue;
        }
      }
      kept.push({ messageId: h.messageId, text: h.text });
    }
    return kept.slice(0, ARCHIVE_HIGHLIGHTS);
  }
}

/** The lines an archived channel's closing post quotes its kept highlights with. */
export function highlightLines(kept: readonly KeptHighlight[]): string[] {
  if (!kept.length) return [];
  return [
    'Memory keeps its highlights:',
    ...kept.map(
      (k) =>
        `> ${k.text.replace(/\s+/g, ' ').slice(0, 200)}${k.authorName ? ` (${k.authorName})` : ''}`,
    ),
  ];
}
