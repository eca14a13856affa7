import { EntityRepository } from '@mikro-orm/postgresql';
import type { EpochClosed, MemoryEpoch } from '@dirigent/contracts';
import type { MemoryItem } from '@dirigent/memory-domain';
import type { MemoryEpochRow } from './epoch.entity';
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

export function epochView(r: Row): MemoryEpoch {
  return {
    id: r.id,
    channelId: r.channel_id,
    startAt: new Date(r.start_at).toISOString(),
    endAt: new Date(r.end_at).toISOString(),
    messageCount: r.message_count,
    participants: r.participants,
    summary: r.summary,
    topics: r.topics,
  };
}

export function epochItem(r: Row): MemoryItem {
  const topics = (r.topics as string[]).length ? ` (${(r.topics as string[]).join(', ')})` : '';
  return {
    layer: 'epochs',
    id: r.id,
    channelId: r.channel_id,
    text: `${r.summary}${topics}`,
    at: ms(r.end_at)!,
  };
}

/** Closed epochs of the guild (or of one channel), newest first. */
export function epochsRead(
  guildId: string,
  channelId: string | undefined,
  limit: number,
  hidden?: ReadonlySet<string>,
): Read<Row[]> {
  const audience = notHidden('channel_id', hidden);
  return {
    sql: `select * from memory_epoch where guild_id = ? ${channelId ? 'and channel_id = ?' : ''}
      ${audience ? `and ${audience.sql}` : ''}
      order by end_at desc limit ?`,
    params: [guildId, ...(channelId ? [channelId] : []), ...(audience?.params ?? []), limit],
    answer: (rows) => rows,
  };
}

/** What an epoch row holds besides its ids: written when it closes and again on a revision. */
export type EpochRecord = Pick<
  EpochClosed,
  'startAt' | 'endAt' | 'messageCount' | 'participants' | 'summary' | 'topics'
>;

/** The record's columns in the order both writes name them, then its sources. */
const recordParams = (e: EpochRecord, sourceIds: string[]) => [
  new Date(e.startAt),
  new Date(e.endAt),
  e.messageCount,
  JSON.stringify(e.participants),
  e.summary,
  JSON.stringify(e.topics),
  JSON.stringify(sourceIds),
];

/** Conversation epochs: summaries over silence-bounded windows of a channel. */
export class EpochRepository extends EntityRepository<MemoryEpochRow> {
  /**
   * Inserts the epoch once (its id is deterministic) with the messages its summary and
   * topics drew on; false when it already existed.
   */
  async record(
    guildId: string,
    e: Omit<EpochClosed, 'guildId'>,
    sourceIds: string[],
  ): Promise<boolean> {
    const rows = await sql(
      this.em,
      `insert into memory_epoch (id, guild_id, channel_id, start_at, end_at, message_count, participants,
         summary, topics, source_message_ids)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?::jsonb) on conflict (id) do nothing returning id`,
      [e.epochId, guildId, e.channelId, ...recordParams(e, sourceIds)],
    );
    return rows.length > 0;
  }

  /**
   * Epochs whose summary or topics drew on one of the messages, or that count the user
   * among their participants.
   */
  async drawingOn(guildId: string, messageIds: string[], userId?: string): Promise<Row[]> {
    return sql(
      this.em,
      `select id, channel_id from memory_epoch where guild_id = ? and (
         jsonb_exists_any(source_message_ids, array(select jsonb_array_elements_text(?::jsonb)))
         ${userId ? 'or participants @> ?::jsonb' : ''})`,
      [guildId, JSON.stringify(messageIds), ...(userId ? [JSON.stringify([userId])] : [])],
    );
  }

  /**
   * Epochs whose summary or topics hold one of the strings (case-insensitive): where a
   * forgotten user may be named without having taken part.
   */
  async mentioning(guildId: string, needles: string[]): Promise<Row[]> {
    const patterns = containsPatterns(needles);
    if (!patterns.length) return [];
    return sql(
      this.em,
      `select id, channel_id, summary, topics from memory_epoch where guild_id = ?
       and (summary || ' ' || topics::text) ilike any (array(select jsonb_array_elements_text(?::jsonb)))`,
      [guildId, JSON.stringify(patterns)],
    );
  }

  /** The epoch's row, locked until the transaction ends (a revision is written once at a time). */
  async lock(guildId: string, id: string): Promise<Row | null> {
    const [row] = await sql(
      this.em,
      `select * from memory_epoch where guild_id = ? and id = ? for update`,
      [guildId, id],
    );
    return row ?? null;
  }

  /** Writes the epoch again from its remaining messages; its event is published again. */
  async revise(id: string, e: EpochRecord, sourceIds: string[]): Promise<void> {
    await sql(
      this.em,
      `update memory_epoch set start_at = ?, end_at = ?, message_count = ?, participants = ?::jsonb,
         summary = ?, topics = ?::jsonb, source_message_ids = ?::jsonb, revision = revision + 1,
         published_at = null where id = ?`,
      [...recordParams(e, sourceIds), id],
    );
  }

  /** Deletes an epoch none of whose messages remain; returns its event's stream sequence. */
  async remove(id: string): Promise<number | null> {
    const [row] = await sql(
      this.em,
      `delete from memory_epoch where id = ? returning published_seq`,
      [id],
    );
    return row?.published_seq ? Number(row.published_seq) : null;
  }

  /** Closed epochs of the channel whose event has not been published yet. */
  async unpublished(guildId: string, channelId: string): Promise<Row[]> {
    return sql(
      this.em,
      `select * from memory_epoch where guild_id = ? and channel_id = ? and published_at is null order by end_at`,
      [guildId, channelId],
    );
  }

  /** Marks the epoch's current revision published, at `seq` of the memory events stream. */
  async markPublished(id: string, revision: number, seq: number): Promise<void> {
    await sql(
      this.em,
      `update memory_epoch set published_at = now(), published_seq = ? where id = ? and revision = ?`,
      [seq, id, revision],
    );
  }

  list(guildId: string, channelId: string | undefined, limit: number): Promise<Row[]> {
    return runRead(this.em, epochsRead(guildId, channelId, limit));
  }

  /** Rows by id (a statement for `selectMany`). */
  byIds(guildId: string, ids: string[]) {
    return rowsByIds('memory_epoch', guildId, ids);
  }

  /** Rows matching the query's words, best first (a statement for `selectMany`). */
  fullText(guildId: string, query: string, limit: number) {
    return fullTextRows('memory_epoch', 'end_at', guildId, query, limit);
  }
}
