import { EntityRepository } from '@mikro-orm/postgresql';
import {
  learnFact,
  type Disclosure,
  type MemoryItem,
  type TimedFact,
} from '@dirigent/memory-domain';
import type { MemoryDossierRow } from './dossier.entity';
import { ms, orQuery, runRead, sql, type Read, type Row, type Statement } from './sql';

export interface FactRow extends TimedFact {
  guildId: string;
  userId: string;
  statement: string;
  sourceMessageId?: string;
  channelId?: string;
}

const factFromRow = (r: Row): FactRow => ({
  id: r.id,
  guildId: r.guild_id,
  userId: r.user_id,
  key: r.key,
  value: r.value,
  statement: r.statement,
  sourceMessageId: r.source_message_id ?? undefined,
  channelId: r.channel_id ?? undefined,
  validFrom: ms(r.valid_from)!,
  validUntil: ms(r.valid_until),
  supersededBy: r.superseded_by ?? undefined,
});

/** A fact as a search/lens item of the dossiers layer: "<name> <statement>". */
export function factItem(f: FactRow, userName: string | null): MemoryItem {
  return {
    layer: 'dossiers',
    id: f.id,
    authorId: f.userId,
    authorName: userName ?? undefined,
    channelId: f.channelId,
    messageId: f.sourceMessageId,
    text: `${userName ?? f.userId} ${f.statement}`,
    at: f.validFrom,
    validFrom: f.validFrom,
    validUntil: f.validUntil,
  };
}

/** A fact row (with its person's `user_name`) as a search item. */
export const factRowItem = (r: Row): MemoryItem => factItem(factFromRow(r), r.user_name ?? null);

/** A dossier's body as a search item of the dossiers layer (`dossier-<userId>`). */
export function bodyItem(r: Row): MemoryItem {
  return {
    layer: 'dossiers',
    id: `dossier-${r.user_id}`,
    authorId: r.user_id,
    authorName: r.user_name ?? undefined,
    text: r.body,
    at: ms(r.last_consolidated_at ?? r.last_seen_at) ?? 0,
    ...((r.source_channel_ids as string[] | undefined)?.length
      ? { sourceChannelIds: r.source_channel_ids as string[] }
      : {}),
  };
}

/** The dossiers of the users (those that exist). */
export function dossiersRead(guildId: string, userIds: string[]): Read<Row[]> {
  return {
    sql: `select * from memory_dossier where guild_id = ?
      and user_id in (select jsonb_array_elements_text(?::jsonb))`,
    params: [guildId, JSON.stringify(userIds)],
    answer: (rows) => rows,
  };
}

/** Facts of users (or only those that still hold), current first, then newest. */
export function factsRead(
  guildId: string,
  userIds: string[],
  currentOnly = false,
): Read<FactRow[]> {
  return {
    sql: `select * from memory_fact where guild_id = ?
      and user_id in (select jsonb_array_elements_text(?::jsonb))
      ${currentOnly ? 'and valid_until is null' : ''}
      order by (valid_until is null) desc, valid_from desc`,
    params: [guildId, JSON.stringify(userIds)],
    answer: (rows) => rows.map(factFromRow),
  };
}

/** Dossiers (counters, body, signals) and their facts with validity windows. */
export class DossierRepository extends EntityRepository<MemoryDossierRow> {
  /**
   * Counts messages per author (one row of counts per author); returns the counters the
   * consolidation predicate reads, by `guildId:userId`.
   */
  async countMessages(
    counts: {
      guildId: string;
      userId: string;
      userName?: string;
      messages: number;
      chars: number;
      lastSeenAt: Date;
    }[],
  ): Promise<Map<string, Row>> {
    if (!counts.length) return new Map();
    const rows = await sql(
      this.em,
      `insert into memory_dossier (guild_id, user_id, user_name, message_count, messages_since, chars_since, last_seen_at)
       select x.guild_id, x.user_id, x.user_name, x.messages, x.messages, x.chars, x.last_seen_at
       from jsonb_to_recordset(?::jsonb) as x(guild_id varchar, user_id varchar, user_name varchar,
         messages int, chars int, last_seen_at timestamptz)
       order by x.guild_id, x.user_id
       on conflict (guild_id, user_id) do update set
         user_name = coalesce(excluded.user_name, memory_dossier.user_name),
         message_count = memory_dossier.message_count + excluded.message_count,
         messages_since = memory_dossier.messages_since + excluded.messages_since,
         chars_since = memory_dossier.chars_since + excluded.chars_since,
         last_seen_at = greatest(memory_dossier.last_seen_at, excluded.last_seen_at)
       returning guild_id, user_id, messages_since, chars_since, last_consolidated_at`,
      [
        JSON.stringify(
          counts.map((c) => ({
            guild_id: c.guildId,
            user_id: c.userId,
            user_name: c.userName ?? null,
            messages: c.messages,
            chars: c.chars,
            last_seen_at: c.lastSeenAt.toISOString(),
          })),
        ),
      ],
    );
    return new Map(rows.map((r) => [`${r.guild_id}:${r.user_id}`, r]));
  }

  async uncount(guildId: string, userId: string): Promise<void> {
    await sql(
      this.em,
      `update memory_dossier set message_count = greatest(message_count - 1, 0)
       where guild_id = ? and user_id = ?`,
      [guildId, userId],
    );
  }

  /** The curated body and the messages it was written from (its provenance). */
  async saveConsolidation(
    guildId: string,
    userId: string,
    body: string,
    signals: Record<string, unknown>,
    at: Date,
    sourceIds: string[],
  ): Promise<void> {
    await sql(
      this.em,
      `update memory_dossier set body = ?, signals = ?::jsonb, messages_since = 0, chars_since = 0,
         last_consolidated_at = ?, body_source_ids = ?::jsonb where guild_id = ? and user_id = ?`,
      [body, JSON.stringify(signals), at, JSON.stringify(sourceIds), guildId, userId],
    );
  }

  /**
   * Users whose dossier body may hold the messages' text: it was written from one of them,
   * or it is their author's (a body also carries what the previous one said).
   */
  async bodiesDrawingOn(
    guildId: string,
    messageIds: string[],
    authorIds: string[],
  ): Promise<string[]> {
    const rows = await sql(
      this.em,
      `select user_id from memory_dossier where guild_id = ? and body <> '' and (
         jsonb_exists_any(body_source_ids, array(select jsonb_array_elements_text(?::jsonb)))
         or user_id in (select jsonb_array_elements_text(?::jsonb)))`,
      [guildId, JSON.stringify(messageIds), JSON.stringify(authorIds)],
    );
    return rows.map((r) => r.user_id as string);
  }

  /** The written dossier bodies of the guild's members other than `userId`. */
  async otherBodies(guildId: string, userId: string): Promise<{ userId: string; body: string }[]> {
    const rows = await sql(
      this.em,
      `select user_id, body from memory_dossier where guild_id = ? and user_id <> ? and body <> ''`,
      [guildId, userId],
    );
    return rows.map((r) => ({ userId: r.user_id as string, body: r.body as string }));
  }

  async get(guildId: string, userId: string): Promise<Row | null> {
    const [row] = await sql(
      this.em,
      `select * from memory_dossier where guild_id = ? and user_id = ?`,
      [guildId, userId],
    );
    return row ?? null;
  }

  async getMany(guildId: string, userIds: string[]): Promise<Row[]> {
    if (!userIds.length) return [];
    return runRead(this.em, dossiersRead(guildId, userIds));
  }

  /** Learns what a message disclosed: a contradicted fact is closed, never deleted. */
  async learn(
    base: Omit<FactRow, 'id' | 'key' | 'value' | 'statement' | 'validUntil' | 'supersededBy'>,
    found: Disclosure[],
  ): Promise<FactRow[]> {
    const added: FactRow[] = [];
    for (const d of found) {
      const [cur] = await sql(
        this.em,
        `select * from memory_fact where guild_id = ? and user_id = ? and key = ? and valid_until is null for update`,
        [base.guildId, base.userId, d.key],
      );
      const next: FactRow = {
        ...base,
        id: `fact-${base.sourceMessageId ?? base.validFrom}-${d.key}`.slice(0, 80),
        key: d.key,
        value: d.value,
        statement: d.statement,
      };
      const change = learnFact(cur ? factFromRow(cur) : undefined, next);
      if (change.kind === 'unchanged') continue;
      if (change.kind === 'superseded') {
        await sql(
          this.em,
          `update memory_fact set valid_until = ?, superseded_by = ? where id = ?`,
          [new Date(change.closed.validUntil!), change.closed.supersededBy, change.closed.id],
        );
      }
      const f = change.added;
      await sql(
        this.em,
        `insert into memory_fact (id, guild_id, user_id, key, value, statement, source_message_id,
           channel_id, valid_from, valid_until, superseded_by)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing`,
        [
          f.id,
          f.guildId,
          f.userId,
          f.key,
          f.value,
          f.statement,
          f.sourceMessageId ?? null,
          f.channelId ?? null,
          new Date(f.validFrom),
          f.validUntil === undefined ? null : new Date(f.validUntil),
          f.supersededBy ?? null,
        ],
      );
      added.push(f);
    }
    return added;
  }

  /** Facts of users, current first, then newest. */
  facts(guildId: string, userIds: string[], currentOnly = false): Promise<FactRow[]> {
    return runRead(this.em, factsRead(guildId, userIds, currentOnly));
  }

  /** Facts by id with their person's name (a statement for `selectMany`). */
  factsByIds(guildId: string, ids: string[]): Statement | null {
    if (!ids.length) return null;
    return {
      sql: `select f.*, d.user_name from memory_fact f left join memory_dossier d
         on d.guild_id = f.guild_id and d.user_id = f.user_id
       where f.guild_id = ? and f.id = any(array(select jsonb_array_elements_text(?::jsonb)))`,
      params: [guildId, JSON.stringify(ids)],
    };
  }

  /** Dossiers of people by user id (a statement for `selectMany`). */
  bodiesByIds(guildId: string, userIds: string[]): Statement | null {
    if (!userIds.length) return null;
    return {
      sql: `select * from memory_dossier where guild_id = ?
       and user_id = any(array(select jsonb_array_elements_text(?::jsonb)))`,
      params: [guildId, JSON.stringify(userIds)],
    };
  }

  /** Facts drawn from deleted messages go with them; what they had closed holds again. */
  async removeFactsFrom(guildId: string, messageIds: string[]): Promise<string[]> {
    if (!messageIds.length) return [];
    const rows = await sql(
      this.em,
      `delete from memory_fact where guild_id = ?
       and source_message_id in (select jsonb_array_elements_text(?::jsonb)) returning id`,
      [guildId, JSON.stringify(messageIds)],
    );
    const ids = rows.map((r) => r.id as string);
    if (ids.length) {
      await sql(
        this.em,
        `update memory_fact set valid_until = null, superseded_by = null where guild_id = ?
         and superseded_by in (select jsonb_array_elements_text(?::jsonb))
         and not exists (select 1 from memory_fact c where c.guild_id = memory_fact.guild_id
           and c.user_id = memory_fact.user_id and c.key = memory_fact.key and c.valid_until is null)`,
        [guildId, JSON.stringify(ids)],
      );
    }
    return ids;
  }

  async forget(guildId: string, userId: string): Promise<{ facts: string[]; dossiers: number }> {
    const facts = await sql(
      this.em,
      `delete from memory_fact where guild_id = ? and user_id = ? returning id`,
      [guildId, userId],
    );
    const d = await sql(
      this.em,
      `delete from memory_dossier where guild_id = ? and user_id = ? returning user_id`,
      [guildId, userId],
    );
    return { facts: facts.map((f) => f.id), dossiers: d.length };
  }

  /** Full-text matches among facts (all of them: validity is applied when ranking). */
  /** Facts matching the query's words (with their person's name), best first: a statement. */
  fullTextFacts(guildId: string, query: string, limit: number): Statement | null {
    const q = orQuery(query);
    if (!q) return null;
    return {
      // A fact matches by its words or its person's name. The names are matched among the
      // guild's dossiers once (a hashed subplan), not joined into every fact's vector: the
      // join read the table's every dossier for each search.
      sql: `select f.*, d.user_name, f.valid_from as at_ from memory_fact f
       left join memory_dossier d on d.guild_id = f.guild_id and d.user_id = f.user_id,
       to_tsquery('english', ?) q
       where f.guild_id = ? and (f.tsv @@ q or f.user_id in (select n.user_id from memory_dossier n
         where n.guild_id = ? and to_tsvector('simple', coalesce(n.user_name, '')) @@ to_tsquery('english', ?)))
       order by ts_rank_cd(f.tsv || to_tsvector('simple', coalesce(d.user_name, '')), q) desc limit ?`,
      params: [q, guildId, guildId, q, limit],
    };
  }

  /** Dossier bodies matching the query's words, best first: a statement. */
  fullTextBodies(guildId: string, query: string, limit: number): Statement | null {
    const q = orQuery(query);
    if (!q) return null;
    return {
      sql: `select d.*, 'dossier-' || d.user_id as id,
         coalesce(d.last_consolidated_at, d.last_seen_at) as at_
       from memory_dossier d, to_tsquery('english', ?) q
       where guild_id = ? and body <> '' and d.tsv @@ q order by ts_rank_cd(d.tsv, q) desc limit ?`,
      params: [q, guildId, limit],
    };
  }
}
