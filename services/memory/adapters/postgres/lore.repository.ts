import { EntityRepository } from '@mikro-orm/postgresql';
import type { MemoryItem } from '@dirigent/memory-domain';
import type { MemoryLore } from './lore.entity';
import {
  containsPatterns,
  fullTextRows,
  ms,
  notHidden,
  rowsByIds,
  runRead,
  sql,
  type Read,
  type Row,
} from './sql';

export function loreItem(r: Row): MemoryItem {
  return {
    layer: 'lore',
    id: r.id,
    text: r.text,
    at: ms(r.valid_from)!,
    validFrom: ms(r.valid_from),
    validUntil: ms(r.valid_until),
    ...((r.source_channel_ids as string[] | undefined)?.length
      ? { sourceChannelIds: r.source_channel_ids as string[] }
      : {}),
  };
}

/** Current lore first, newest first. */
export function loreRead(
  guildId: string,
  limit: number,
  hidden?: ReadonlySet<string>,
): Read<MemoryItem[]> {
  const audience = notHidden('source_channel_ids', hidden, true);
  return {
    sql: `select * from memory_lore where guild_id = ? ${audience ? `and ${audience.sql}` : ''}
      order by (valid_until is null) desc, valid_from desc limit ?`,
    params: [guildId, ...(audience?.params ?? []), limit],
    answer: (rows) => rows.map(loreItem),
  };
}

/** Group lore: relational patterns about the guild, paraphrase by design. */
export class LoreRepository extends EntityRepository<MemoryLore> {
  /** Lore an epoch's summary named, drawn on that epoch's messages. */
  async add(
    guildId: string,
    id: string,
    text: string,
    epochId: string,
    at: Date,
    sourceIds: string[],
  ): Promise<void> {
    await sql(
      this.em,
      `insert into memory_lore (id, guild_id, text, source_epoch_id, valid_from, source_message_ids, kind)
       values (?, ?, ?, ?, ?, ?::jsonb, 'epoch') on conflict (id) do nothing`,
      [id, guildId, text, epochId, at, JSON.stringify(sourceIds)],
    );
  }

  /**
   * Lore from the room: phrases several people repeat, written in one statement in id
   * order (the order redactions lock lore in). A row is written only when its text or
   * its sources (as a set) change: an update that would change nothing is not made, so
   * concurrent batches that coalesced the same change, or a batch that read the lore
   * before another wrote it, leave no dead row behind. Returns the ids written.
   */
  async upsertPhrases(
    guildId: string,
    items: { id: string; text: string; sourceIds: string[] }[],
    at: Date,
  ): Promise<string[]> {
    if (!items.length) return [];
    const rows = await sql(
      this.em,
      `insert into memory_lore as l (id, guild_id, text, valid_from, source_message_ids, kind)
       select x.id, ?, x.text, ?, x.sources, 'phrase'
       from jsonb_to_recordset(?::jsonb) as x(id varchar, text text, sources jsonb)
       order by x.id
       on conflict (id) do update set text = excluded.text, source_message_ids = excluded.source_message_ids
       where l.text is distinct from excluded.text
         or not (l.source_message_ids @> excluded.source_message_ids
           and excluded.source_message_ids @> l.source_message_ids)
       returning l.id`,
      [
        guildId,
        at,
        JSON.stringify(items.map((i) => ({ id: i.id, text: i.text, sources: i.sourceIds }))),
      ],
    );
    return rows.map((r) => r.id as string);
  }

  /** Removes the lore an epoch's summary named; returns the ids. */
  async removeByEpoch(guildId: string, epochId: string): Promise<string[]> {
    const rows = await sql(
      this.em,
      `delete from memory_lore where guild_id = ? and source_epoch_id = ? returning id`,
      [guildId, epochId],
    );
    return rows.map((r) => r.id as string);
  }

  /** Lore whose text contains one of the needles (case-insensitive): id and text. */
  mentioning(guildId: string, needles: string[]): Promise<Row[]> {
    const patterns = containsPatterns(needles);
    if (!patterns.length) return Promise.resolve([]);
    return sql(
      this.em,
      `select id, text from memory_lore where guild_id = ?
       and text ilike any (array(select jsonb_array_elements_text(?::jsonb)))`,
      [guildId, JSON.stringify(patterns)],
    );
  }

  /**
   * Removes every lore item drawn on one of the messages, and the items `ids`, locked in id
   * order (the order coalescing writes them in); returns the ids removed.
   */
  async removeDrawingOn(
    guildId: string,
    messageIds: string[],
    ids: string[] = [],
  ): Promise<string[]> {
    if (!messageIds.length && !ids.length) return [];
    const rows = await sql(
      this.em,
      `delete from memory_lore where guild_id = ? and id in (
         select id from memory_lore where guild_id = ?
         and (jsonb_exists_any(source_message_ids, array(select jsonb_array_elements_text(?::jsonb)))
           or id in (select jsonb_array_elements_text(?::jsonb)))
         order by id for update)
       returning id`,
      [guildId, guildId, JSON.stringify(messageIds), JSON.stringify(ids)],
    );
    return rows.map((r) => r.id as string);
  }

  /** Current lore first, newest first. */
  list(guildId: string, limit: number): Promise<MemoryItem[]> {
    return runRead(this.em, loreRead(guildId, limit));
  }

  /** Rows by id (a statement for `selectMany`). */
  byIds(guildId: string, ids: string[]) {
    return rowsByIds('memory_lore', guildId, ids);
  }

  /** Rows matching the query's words, best first (a statement for `selectMany`). */
  fullText(guildId: string, query: string, limit: number) {
    return fullTextRows('memory_lore', 'valid_from', guildId, query, limit);
  }
}
