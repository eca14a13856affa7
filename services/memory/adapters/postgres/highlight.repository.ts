import { EntityRepository } from '@mikro-orm/postgresql';
import type { MemoryHighlight } from '@dirigent/contracts';
import type { MemoryItem } from '@dirigent/memory-domain';
import type { MemoryHighlightRow } from './highlight.entity';
import { fullTextRows, ms, notHidden, rowsByIds, runRead, sql, type Read, type Row } from './sql';

export const highlightId = (messageId: string) => `hl-${messageId}`;

export function highlightView(r: Row): MemoryHighlight {
  return {
    id: r.id,
    guildId: r.guild_id,
    channelId: r.channel_id,
    messageId: r.message_id,
    authorId: r.author_id,
    authorName: r.author_name ?? null,
    rawText: r.raw_text,
    kind: r.kind,
    at: new Date(r.at).toISOString(),
  };
}

export function highlightItem(r: Row): MemoryItem {
  return {
    layer: 'highlights',
    id: r.id,
    channelId: r.channel_id,
    authorId: r.author_id,
    authorName: r.author_name ?? undefined,
    messageId: r.message_id,
    text: r.raw_text,
    at: ms(r.at)!,
  };
}

/** Highlights (of some kinds), strongest first. */
export function strongestRead(
  guildId: string,
  limit: number,
  kinds?: string[],
  hidden?: ReadonlySet<string>,
): Read<MemoryItem[]> {
  const audience = notHidden('channel_id', hidden);
  return {
    sql: `select * from memory_highlight where guild_id = ?
      ${kinds?.length ? 'and kind in (select jsonb_array_elements_text(?::jsonb))' : ''}
      ${audience ? `and ${audience.sql}` : ''}
      order by score desc, at desc limit ?`,
    params: [
      guildId,
      ...(kinds?.length ? [JSON.stringify(kinds)] : []),
      ...(audience?.params ?? []),
      limit,
    ],
    answer: (rows) => rows.map(highlightItem),
  };
}

/** Highlights: verbatim copies of archived messages, one per message. */
export class HighlightRepository extends EntityRepository<MemoryHighlightRow> {
  /** Copies the archived message's text as it is; null when the message is not archived. */
  async addFromMessage(
    guildId: string,
    messageId: string,
    kind: string,
    score: number,
  ): Promise<{ row: Row; created: boolean } | null> {
    const inserted = await sql(
      this.em,
      `insert into memory_highlight (id, guild_id, channel_id, message_id, author_id, author_name, raw_text, kind, score, at)
       select ?, guild_id, channel_id, message_id, author_id, author_name, content, ?, ?, created_at
       from memory_message where guild_id = ? and message_id = ?
       on conflict (guild_id, message_id) do update set score = greatest(memory_highlight.score, excluded.score)
       returning *, (xmax = 0) as created`,
      [highlightId(messageId), kind, score, guildId, messageId],
    );
    if (!inserted.length) return null;
    return { row: inserted[0], created: inserted[0].created };
  }

  async removeByMessages(guildId: string, messageIds: string[]): Promise<string[]> {
    if (!messageIds.length) return [];
    const rows = await sql(
      this.em,
      `delete from memory_highlight where guild_id = ?
       and message_id in (select jsonb_array_elements_text(?::jsonb)) returning id`,
      [guildId, JSON.stringify(messageIds)],
    );
    return rows.map((r) => r.id);
  }

  async removeByAuthor(guildId: string, authorId: string): Promise<string[]> {
    const rows = await sql(
      this.em,
      `delete from memory_highlight where guild_id = ? and author_id = ? returning id`,
      [guildId, authorId],
    );
    return rows.map((r) => r.id);
  }

  strongest(guildId: string, limit: number, kinds?: string[]): Promise<MemoryItem[]> {
    return runRead(this.em, strongestRead(guildId, limit, kinds));
  }

  /** Rows by id (a statement for `selectMany`). */
  byIds(guildId: string, ids: string[]) {
    return rowsByIds('memory_highlight', guildId, ids);
  }

  /** Rows matching the query's words, best first (a statement for `selectMany`). */
  fullText(guildId: string, query: string, limit: number) {
    return fullTextRows('memory_highlight', 'at', guildId, query, limit);
  }
}
