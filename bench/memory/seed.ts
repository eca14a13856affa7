import { knex } from 'knex';
import { filler, NAMES, prng } from './corpus';

const DAY = 86_400_000;
/** Distinct lines the seeded messages are drawn from (the corpus's filler grammar). */
const LINES = 20_000;
/** Rows written per statement: a million in fifty statements, each reporting progress. */
const CHUNK = 20_000;

export interface SeededGuild {
  guildId: string;
  channelIds: string[];
  authors: { id: string; name: string }[];
}

/**
 * A guild's archive of `total` messages written straight into `memory_message`, as the
 * ingest would have left it over 90 days (50 channels, 200 authors), without going
 * through the service: a million messages through JetStream would take the bench most of
 * an hour. The table's GIN indexes are dropped for the load and built again after it (a
 * bulk build is several times faster than a million inserts into them), then the table
 * is analysed as autovacuum would.
 */
export async function seedArchive(
  databaseUrl: string,
  guild: SeededGuild,
  total: number,
  progress: (what: string) => void,
): Promise<void> {
  const db = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  try {
    const rand = prng(99);
    const lines = Array.from({ length: LINES }, () => filler(rand));
    const { rows: gins } = await db.raw<{ rows: { indexname: string; indexdef: string }[] }>(
      `select indexname, indexdef from pg_indexes
       where tablename = 'memory_message' and indexdef ilike '%using gin%'`,
    );
    for (const i of gins) await db.raw(`drop index "${i.indexname}"`);
    const start = Date.now() - 90 * DAY;
    const step = (90 * DAY) / total;
    for (let from = 0; from < total; from += CHUNK) {
      const to = Math.min(total, from + CHUNK) - 1;
      await db.raw(
        `insert into memory_message (guild_id, channel_id, message_id, author_id, author_name,
           author_is_bot, content, created_at, mentions, reaction_count, reply_count, quote_count)
         select ?, (?::text[])[1 + (g * 31) % ?], ? || lpad(g::text, 8, '0'),
           (?::text[])[1 + (g * 7919) % ?], (?::text[])[1 + (g * 7919) % ?], false,
           (?::text[])[1 + (g * 104729) % ?],
           to_timestamp((? + g * ?) / 1000.0), '[]', 0, 0, 0
         from generate_series(?::bigint, ?::bigint) g`,
        [
          guild.guildId,
          guild.channelIds,
          guild.channelIds.length,
          guild.guildId.slice(0, 10),
          guild.authors.map((a) => a.id),
          guild.authors.length,
          guild.authors.map((a) => a.name),
          guild.authors.length,
          lines,
          lines.length,
          start,
          step,
          from,
          to,
        ],
      );
      if ((to + 1) % 200_000 === 0) progress(`seeded ${to + 1}`);
    }
    progress('building the full-text indexes');
    for (const i of gins) await db.raw(i.indexdef);
    await db.raw('vacuum analyze memory_message');
  } finally {
    await db.destroy();
  }
}

/** A guild of 50 channels and 200 authors named from the corpus's names. */
export function seededGuild(guildId: string, base: bigint): SeededGuild {
  const id = (n: number) => String(base + BigInt(n));
  return {
    guildId,
    channelIds: Array.from({ length: 50 }, (_, i) => id(i)),
    authors: NAMES.slice(0, 200).map((name, i) => ({ id: id(100 + i), name })),
  };
}
