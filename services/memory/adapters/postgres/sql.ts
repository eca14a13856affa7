import type { EntityManager } from '@mikro-orm/postgresql';
import type { LexicalDoc } from '@dirigent/memory-domain';
import { laneConnection } from './query-lane';

export type Row = Record<string, any>;

/**
 * Raw SQL (`?` placeholders; no `?` operators inside), inside the current transaction when
 * there is one (`em.transactional` around a use case); outside one, on the query lane's
 * connections when a search or a context read runs (`QueryLane`).
 */
export function sql<T = Row>(em: EntityManager, query: string, params: unknown[] = []) {
  const tx = em.getTransactionContext();
  const connection = (!tx && laneConnection()) || em.getConnection();
  return connection.execute<T[]>(query, params, 'all', tx);
}

/** Filters shared by archive reads and searches, as SQL and its parameters. */
export interface ArchiveFilter {
  channelId?: string;
  excludeChannelId?: string;
  authorId?: string;
  authorIsBot?: boolean;
  since?: number;
  until?: number;
  /** Channels the reader's audience may not see (`hiddenFrom`): left out. */
  hiddenChannelIds?: ReadonlySet<string>;
}

/**
 * A condition leaving out rows from hidden channels, and its parameter; null when none are
 * hidden. `column` is a channel id, or with `many` a jsonb array of channel ids.
 */
export function notHidden(
  column: string,
  hidden: ReadonlySet<string> | undefined,
  many = false,
): Statement | null {
  if (!hidden?.size) return null;
  const list = `array(select jsonb_array_elements_text(?::jsonb))`;
  return {
    sql: many ? `not jsonb_exists_any(${column}, ${list})` : `not (${column} = any(${list}))`,
    params: [JSON.stringify([...hidden])],
  };
}

export function archiveWhere(guildId: string, f: ArchiveFilter, alias = 'm') {
  const where = [`${alias}.guild_id = ?`];
  const params: unknown[] = [guildId];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    params.push(value);
  };
  if (f.channelId) add(`${alias}.channel_id = ?`, f.channelId);
  if (f.excludeChannelId) add(`${alias}.channel_id <> ?`, f.excludeChannelId);
  if (f.authorId) add(`${alias}.author_id = ?`, f.authorId);
  if (f.authorIsBot !== undefined) add(`${alias}.author_is_bot = ?`, f.authorIsBot);
  if (f.since !== undefined) add(`${alias}.created_at >= ?`, new Date(f.since));
  if (f.until !== undefined) add(`${alias}.created_at <= ?`, new Date(f.until));
  const audience = notHidden(`${alias}.channel_id`, f.hiddenChannelIds);
  if (audience) add(audience.sql, audience.params[0]);
  return { where: where.join(' and '), params };
}

/** Words of a query as an OR tsquery text (`rust | build`), safe for `to_tsquery`. */
export function orQuery(text: string): string | null {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1)
    .slice(0, 32);
  return words.length ? [...new Set(words)].join(' | ') : null;
}

/**
 * A Postgres array literal for a `real[]` parameter, each value written with the nine
 * significant digits that identify a 4-byte float: what Postgres stores is the same as
 * from the full double, in half the text (a batch of 512-dimension vectors is most of the
 * ingest's bytes on the wire).
 */
export function realArray(v: ArrayLike<number>): string {
  let out = '{';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (i) out += ',';
    out += x === 0 ? '0' : String(Number(Math.fround(x).toPrecision(9)));
  }
  return `${out}}`;
}

export const ms = (d: Date | string | null | undefined) =>
  d === null || d === undefined ? undefined : new Date(d).getTime();

/** One statement (`?` placeholders) and its parameters, to run alone or with others. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Rows of a layer table matching the query's words, best first, each with its time as
 * `at_`; null when the query has no words.
 */
export function fullTextRows(
  table: 'memory_highlight' | 'memory_lore' | 'memory_epoch',
  atColumn: string,
  guildId: string,
  query: string,
  limit: number,
): Statement | null {
  const q = orQuery(query);
  if (!q) return null;
  return {
    sql: `select t.*, t.${atColumn} as at_ from ${table} t, to_tsquery('english', ?) q
     where t.guild_id = ? and t.tsv @@ q order by ts_rank_cd(t.tsv, q) desc limit ?`,
    params: [q, guildId, limit],
  };
}

/**
 * Several queries in one round trip (one statement, `union all`): each one's rows, in its
 * own order, with the columns it selected (`tsv` left out: no caller reads a text-search
 * vector). A search asks every layer at once; a statement per layer costs a round trip and
 * a backend's planning each on a loaded machine. A null query gives no rows.
 */
export async function selectMany(
  em: EntityManager,
  queries: (Statement | null)[],
): Promise<Row[][]> {
  const parts = queries.flatMap((q, i) => (q ? [{ ...q, i }] : []));
  const out = queries.map((): Row[] => []);
  if (!parts.length) return out;
  // Each part's rows are numbered as its ordered subquery yields them, and carried as one
  // jsonb value: the parts select different columns. Times come back as ISO text.
  const union = parts
    .map(
      (p) =>
        `(select ${p.i} as part_, row_number() over () as n_, to_jsonb(s) - 'tsv' as row_
          from (${p.sql}) s)`,
    )
    .join(' union all ');
  const rows = await sql<{ part_: number; row_: Row }>(
    em,
    `select part_, row_ from (${union}) u order by part_, n_`,
    parts.flatMap((p) => p.params),
  );
  for (const r of rows) out[r.part_].push(r.row_);
  return out;
}

/** Rows of a layer table by id, within one guild (a statement for `selectMany`). */
export function rowsByIds(
  table: 'memory_highlight' | 'memory_lore' | 'memory_epoch',
  guildId: string,
  ids: string[],
): Statement | null {
  if (!ids.length) return null;
  return {
    sql: `select * from ${table} where guild_id = ?
     and id = any(array(select jsonb_array_elements_text(?::jsonb)))`,
    params: [guildId, JSON.stringify(ids)],
  };
}

/** `ilike` patterns matching text that contains any of the needles (empty ones left out). */
export const containsPatterns = (needles: readonly string[]): string[] =>
  needles.filter(Boolean).map((n) => `%${n.replace(/[\\%_]/g, '\\$&')}%`);

/** A read: its statement and how its rows become the answer. */
export interface Read<T> extends Statement {
  answer: (rows: Row[]) => T;
}

/** Runs one read on its own. */
export async function runRead<T>(em: EntityManager, read: Read<T>): Promise<T> {
  return read.answer(await sql(em, read.sql, read.params));
}

/** A stored message row as the archive's lexical index takes it. */
export const lexicalDoc = (r: Row): LexicalDoc => ({
  id: r.message_id,
  text: r.content,
  at: ms(r.created_at)!,
  channelId: r.channel_id,
  authorId: r.author_id,
  authorName: r.author_name ?? undefined,
});
