import { EntityRepository } from '@mikro-orm/postgresql';
import type { MemoryItem } from '@dirigent/memory-domain';
import type { MemoryMessage } from './message.entity';
import {
  archiveWhere,
  ms,
  notHidden,
  orQuery,
  runRead,
  sql,
  type ArchiveFilter,
  type Read,
  type Row,
  type Statement,
} from './sql';

/** Matches of one full-text query ranked at most (the newest). */
const RANKED = 1000;
/** A lexeme in more than this fraction of messages is too common to search for alone. */
const COMMON_LEXEME = 0.01;

const COLUMNS = `m.message_id, m.channel_id, m.author_id, m.author_name, m.author_is_bot, m.content,
  m.created_at, m.reply_to_message_id, m.reaction_count, m.reply_count, m.quote_count`;

export function messageItem(r: Row): MemoryItem {
  return {
    layer: 'archive',
    id: r.message_id,
    messageId: r.message_id,
    channelId: r.channel_id,
    authorId: r.author_id,
    authorName: r.author_name ?? undefined,
    authorIsBot: r.author_is_bot,
    text: r.content,
    at: ms(r.created_at)!,
    replyToMessageId: r.reply_to_message_id ?? undefined,
    reactionCount: r.reaction_count,
    replyCount: r.reply_count,
  };
}

/** Archived messages, newest first. */
export function recentRead(
  guildId: string,
  f: ArchiveFilter & { limit: number },
): Read<MemoryItem[]> {
  const { where, params } = archiveWhere(guildId, f);
  return {
    sql: `select ${COLUMNS} from memory_message m where ${where}
      order by m.created_at desc, m.seq desc limit ?`,
    params: [...params, f.limit],
    answer: (rows) => rows.map(messageItem),
  };
}

/** A reproducible random sample of the archive for `seed`. */
export function sampleRead(
  guildId: string,
  limit: number,
  seed: number,
  hidden?: ReadonlySet<string>,
): Read<MemoryItem[]> {
  const audience = notHidden('m.channel_id', hidden);
  return {
    sql: `select ${COLUMNS} from memory_message m where m.guild_id = ?
      ${audience ? `and ${audience.sql}` : ''}
      order by md5(m.message_id || ?) limit ?`,
    params: [guildId, ...(audience?.params ?? []), String(seed), limit],
    answer: (rows) => rows.map(messageItem),
  };
}

export interface NewMessage {
  guildId: string;
  channelId: string;
  messageId: string;
  authorId: string;
  authorName?: string;
  authorIsBot: boolean;
  content: string;
  createdAt: Date;
  replyToMessageId?: string;
  mentions: string[];
}

/** The transcript archive (and the live window, its newest rows), reactions and tombstones. */
export class MessageRepository extends EntityRepository<MemoryMessage> {
  /**
   * Stores messages once each (with the reactions that arrived before them), in one
   * statement; returns the rows stored, in input order. A duplicate, or a message deleted
   * before it arrived, is left out.
   */
  async insertManyIfNew(ms: NewMessage[]): Promise<Row[]> {
    if (!ms.length) return [];
    await this.lockMessages(ms.map((m) => [m.guildId, m.messageId]));
    return sql(
      this.em,
      `insert into memory_message (guild_id, channel_id, message_id, author_id, author_name,
         author_is_bot, content, created_at, reply_to_message_id, mentions, reaction_count)
       select x.guild_id, x.channel_id, x.message_id, x.author_id, x.author_name, x.author_is_bot,
         x.content, x.created_at, x.reply_to_message_id, coalesce(x.mentions, '[]'),
         (select count(distinct r.user_id) from memory_reaction r
          where r.guild_id = x.guild_id and r.message_id = x.message_id)
       from jsonb_to_recordset(?::jsonb) as x(ord int, guild_id varchar, channel_id varchar,
         message_id varchar, author_id varchar, author_name varchar, author_is_bot boolean,
         content text, created_at timestamptz, reply_to_message_id varchar, mentions jsonb)
       where not exists (select 1 from memory_tombstone t
         where t.guild_id = x.guild_id and t.message_id = x.message_id)
       order by x.ord
       on conflict (guild_id, message_id) do nothing
       returning guild_id, ${COLUMNS.replace(/m\./g, '')}`,
      [
        JSON.stringify(
          ms.map((m, ord) => ({
            ord,
            guild_id: m.guildId,
            channel_id: m.channelId,
            message_id: m.messageId,
            author_id: m.authorId,
            author_name: m.authorName ?? null,
            author_is_bot: m.authorIsBot,
            content: m.content,
            created_at: m.createdAt.toISOString(),
            reply_to_message_id: m.replyToMessageId ?? null,
            mentions: m.mentions,
          })),
        ),
      ],
    );
  }

  /**
   * Serialises, until commit, the transactions that touch one message's reactions (its
   * insert counts the reactions that arrived first; each reaction recounts), so concurrent
   * deliveries never miss each other's rows.
   */
  private async lockMessage(guildId: string, messageId: string): Promise<void> {
    await this.lockMessages([[guildId, messageId]]);
  }

  /** The locks of several messages, taken in one order so that two batches never deadlock. */
  private async lockMessages(keys: [guildId: string, messageId: string][]): Promise<void> {
    const names = [...new Set(keys.map(([g, m]) => `memory:${g}:${m}`))].sort();
    await sql(
      this.em,
      `select count(pg_advisory_xact_lock(hashtext(k)))
       from (select k from jsonb_array_elements_text(?::jsonb) k order by k) s`,
      [JSON.stringify(names)],
    );
  }

  async bumpReplies(guildId: string, messageId: string): Promise<Row | null> {
    const [row] = await sql(
      this.em,
      `update memory_message m set reply_count = reply_count + 1
       where guild_id = ? and message_id = ? returning ${COLUMNS}`,
      [guildId, messageId],
    );
    return row ?? null;
  }

  /** Counts a quote on the newest earlier message that holds the quoted passage. */
  async bumpQuote(guildId: string, passage: string, before: Date): Promise<Row | null> {
    const [row] = await sql(
      this.em,
      `update memory_message m set quote_count = quote_count + 1
       where seq = (select seq from memory_message where guild_id = ? and created_at < ?
                    and strpos(content, ?) > 0 order by created_at desc limit 1)
       returning ${COLUMNS}`,
      [guildId, before, passage],
    );
    return row ?? null;
  }

  /** Records one user's reaction (or its removal) and recounts distinct reacting users. */
  async react(
    guildId: string,
    messageId: string,
    userId: string,
    emoji: string,
    added: boolean,
  ): Promise<Row | null> {
    await this.lockMessage(guildId, messageId);
    await sql(
      this.em,
      added
        ? `insert into memory_reaction (guild_id, message_id, user_id, emoji) values (?, ?, ?, ?)
           on conflict do nothing`
        : `delete from memory_reaction where guild_id = ? and message_id = ? and user_id = ? and emoji = ?`,
      [guildId, messageId, userId, emoji],
    );
    const [row] = await sql(
      this.em,
      `update memory_message m set reaction_count = (select count(distinct user_id)
         from memory_reaction r where r.guild_id = m.guild_id and r.message_id = m.message_id)
       where guild_id = ? and message_id = ? returning ${COLUMNS}`,
      [guildId, messageId],
    );
    return row ?? null;
  }

  /** Deletes a message (and remembers it was deleted, so a late copy is not stored). */
  async remove(guildId: string, messageId: string): Promise<Row | null> {
    await this.lockMessage(guildId, messageId);
    await sql(
      this.em,
      `insert into memory_tombstone (guild_id, message_id) values (?, ?) on conflict do nothing`,
      [guildId, messageId],
    );
    await sql(this.em, `delete from memory_reaction where guild_id = ? and message_id = ?`, [
      guildId,
      messageId,
    ]);
    const [row] = await sql(
      this.em,
      `delete from memory_message m where guild_id = ? and message_id = ? returning ${COLUMNS}`,
      [guildId, messageId],
    );
    return row ?? null;
  }

  /** What an author is called and what they said (their latest `limit` messages), for a `forget`. */
  async authorTrace(
    guildId: string,
    authorId: string,
    limit = 5_000,
  ): Promise<{ names: string[]; texts: string[] }> {
    const rows = await sql(
      this.em,
      `select author_name, content from memory_message where guild_id = ? and author_id = ?
       order by created_at desc limit ?`,
      [guildId, authorId, limit],
    );
    return {
      names: [...new Set(rows.flatMap((r) => (r.author_name ? [r.author_name as string] : [])))],
      texts: rows.map((r) => r.content as string),
    };
  }

  /** Deletes every message of an author in a guild (and their reactions); returns their ids. */
  async removeByAuthor(guildId: string, authorId: string): Promise<string[]> {
    await sql(this.em, `delete from memory_reaction where guild_id = ? and user_id = ?`, [
      guildId,
      authorId,
    ]);
    // Tombstoned like deletions, so that a replay of the stream does not bring them back.
    const rows = await sql(
      this.em,
      `with gone as (delete from memory_message where guild_id = ? and author_id = ?
         returning guild_id, message_id),
       stones as (insert into memory_tombstone (guild_id, message_id)
         select guild_id, message_id from gone on conflict do nothing),
       reactions as (delete from memory_reaction r using gone
         where r.guild_id = gone.guild_id and r.message_id = gone.message_id)
       select message_id from gone`,
      [guildId, authorId],
    );
    return rows.map((r) => r.message_id);
  }

  recent(guildId: string, f: ArchiveFilter & { limit: number }): Promise<MemoryItem[]> {
    return runRead(this.em, recentRead(guildId, f));
  }

  /**
   * Messages by id, each marked `stale` when a fact drawn from it has been superseded (a
   * statement for `selectMany`).
   */
  byIds(guildId: string, messageIds: string[]): Statement | null {
    if (!messageIds.length) return null;
    return {
      sql: `select ${COLUMNS}, exists (select 1 from memory_fact f where f.guild_id = m.guild_id
         and f.source_message_id = m.message_id and f.valid_until is not null) as stale
       from memory_message m where m.guild_id = ?
       and m.message_id = any(array(select jsonb_array_elements_text(?::jsonb)))`,
      params: [guildId, JSON.stringify(messageIds)],
    };
  }

  sample(guildId: string, limit: number, seed: number): Promise<MemoryItem[]> {
    return runRead(this.em, sampleRead(guildId, limit, seed));
  }

  /**
   * Full-text matches, best first: messages holding every word of the query, then those
   * holding any of its uncommon words (in at most 1% of messages, by the planner's lexeme
   * statistics: a common word alone says little and would make the query rank a large
   * part of the archive). Each part ranks (ts_rank_cd) only the newest `RANKED` of its
   * matches, so that its cost stays bounded however large the guild grows.
   */
  async fullText(guildId: string, query: string, f: ArchiveFilter, limit: number) {
    const any = orQuery(query);
    if (!any) return [];
    // Lexemes quoted for tsquery input: backslashes and quotes escaped.
    const quoted = `'''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || ''''`;
    const [queries] = await sql<{ every: string | null; uncommon: string | null }>(
      this.em,
      `with lexemes as (select unnest(tsvector_to_array(to_tsvector('english', ?))) as l),
       common as (select u.e from pg_stats st,
           unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) as u(e, f)
         where st.schemaname = current_schema() and st.tablename = 'memory_message'
           and st.attname = 'tsv' and u.f > ${COMMON_LEXEME} and u.e is not null)
       select nullif(to_tsquery('english', ?)::text, '') as every,
         (select string_agg(${quoted}, ' | ') from lexemes
          where l not in (select e from common)) as uncommon`,
      [query, any.replace(/ \| /g, ' & ')],
    );
    // As literals, so that the planner weighs them by its lexeme statistics (and takes
    // the GIN index for uncommon words).
    const parts = [queries.every, queries.uncommon].flatMap((q, i) =>
      q ? [{ q, stage: 1 - i }] : [],
    );
    if (!parts.length) return [];
    const { where, params } = archiveWhere(guildId, f);
    const rows = await sql(
      this.em,
      `select id, created_at from (${parts
        .map(
          ({ stage }) =>
            `(select s.message_id as id, s.created_at, ${stage} as stage, ts_rank_cd(s.tsv, s.q) as r
              from (select m.message_id, m.created_at, m.tsv, q.q
                    from memory_message m, (select ?::tsquery as q) q
                    where ${where} and m.tsv @@ q.q order by m.created_at desc limit ${RANKED}) s
              order by r desc, s.created_at desc limit ?)`,
        )
        .join(' union all ')}) hits order by stage desc, r desc, created_at desc`,
      parts.flatMap(({ q }) => [q, ...params, limit]),
    );
    // A message holding every word is among the uncommon words' matches too: listed once.
    const seen = new Set<string>();
    return rows.filter((r) => !seen.has(r.id) && !!seen.add(r.id));
  }

  /**
   * The newest messages of the people whose names the query mentions (or misspells): the
   * few matching people first, then each one's newest by the author index. A semi-join on
   * them instead walked the guild's messages newest first, testing each against the list,
   * and when the query names no one (most queries) it read every row: 1.8 s at 1,000,000.
   */
  async byNamedAuthors(guildId: string, query: string, f: ArchiveFilter, limit: number) {
    const { where, params } = archiveWhere(guildId, f);
    return sql(
      this.em,
      `with named as materialized (select user_id from memory_dossier
         where guild_id = ? and user_name <% ?)
       select h.id, h.created_at from named n cross join lateral (
         select m.message_id as id, m.created_at from memory_message m
         where ${where} and m.author_id = n.user_id
         order by m.created_at desc limit ?) h
       order by h.created_at desc limit ?`,
      [guildId, query, ...params, limit, limit],
    );
  }

  async openEpoch(guildId: string, channelId: string): Promise<Row[]> {
    return sql(
      this.em,
      `select ${COLUMNS} from memory_message m
       where guild_id = ? and channel_id = ? and epoch_id is null order by created_at, seq`,
      [guildId, channelId],
    );
  }

  /** The messages of a closed epoch that remain (a deleted one is gone from the archive). */
  async epochMessages(guildId: string, epochId: string): Promise<Row[]> {
    return sql(
      this.em,
      `select ${COLUMNS} from memory_message m where guild_id = ? and epoch_id = ? order by created_at, seq`,
      [guildId, epochId],
    );
  }

  /** Which of the messages were deleted (or forgotten). */
  async tombstoned(guildId: string, messageIds: string[]): Promise<string[]> {
    if (!messageIds.length) return [];
    const rows = await sql(
      this.em,
      `select message_id from memory_tombstone where guild_id = ?
       and message_id in (select jsonb_array_elements_text(?::jsonb))`,
      [guildId, JSON.stringify(messageIds)],
    );
    return rows.map((r) => r.message_id as string);
  }

  /**
   * A channel's messages after `after` (oldest first, at most `limit`), with the `context`
   * messages just before them that replies and quotes may point at.
   */
  async channelWindow(
    guildId: string,
    channelId: string,
    after: Date | null,
    limit: number,
    context = 20,
  ): Promise<{ before: Row[]; rows: Row[] }> {
    const since = after ?? new Date(0);
    const [rows, before] = await Promise.all([
      sql(
        this.em,
        `select ${COLUMNS} from memory_message m where guild_id = ? and channel_id = ? and created_at > ?
         order by created_at, seq limit ?`,
        [guildId, channelId, since, limit],
      ),
      sql(
        this.em,
        `select ${COLUMNS} from memory_message m where guild_id = ? and channel_id = ? and created_at <= ?
         order by created_at desc, seq desc limit ?`,
        [guildId, channelId, since, context],
      ),
    ]);
    return { before: before.reverse(), rows };
  }

  async assignEpoch(guildId: string, messageIds: string[], epochId: string): Promise<void> {
    await sql(
      this.em,
      `update memory_message set epoch_id = ? where guild_id = ? and epoch_id is null
       and message_id in (select jsonb_array_elements_text(?::jsonb))`,
      [epochId, guildId, JSON.stringify(messageIds)],
    );
  }
}
