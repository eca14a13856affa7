import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Row } from './sql';

/** A deletion or `forget` still to reach every layer that drew on the messages. */
export interface RedactionJob {
  id: string;
  guildId: string;
  /** The forgotten user (their participation goes too), when the job is a `forget`. */
  userId?: string;
  messageIds: string[];
  /**
   * Members whose dossier bodies are written again: the deleted messages' authors, and
   * for a `forget` the others whose body named or quoted the forgotten user.
   */
  authorIds: string[];
  /** A `forget`: the forgotten user's display names, left out of the bodies written again. */
  names?: string[];
  /** A `forget`: hashes of what the user said (`quoteHashes`), never the words. */
  quotes?: string[];
}

const jobFromRow = (r: Row): RedactionJob => ({
  id: r.id,
  guildId: r.guild_id,
  ...(r.user_id ? { userId: r.user_id } : {}),
  messageIds: r.message_ids,
  authorIds: r.author_ids,
  ...(r.names?.length ? { names: r.names } : {}),
  ...(r.quotes?.length ? { quotes: r.quotes } : {}),
});

/**
 * The durable redaction jobs (table `memory_redaction`): written in the transaction that
 * deletes the messages, marked done once every layer was revisited (a `forget`'s names
 * and quote hashes are then cleared); a job left pending by
 * a crash is taken up again at start.
 */
@Injectable()
export class RedactionStore {
  constructor(private readonly em: EntityManager) {}

  /** Records the job (once by id); inside the caller's transaction. */
  async add(job: RedactionJob): Promise<void> {
    await sql(
      this.em,
      `insert into memory_redaction (id, guild_id, user_id, message_ids, author_ids, names, quotes)
       values (?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb) on conflict (id) do nothing`,
      [
        job.id,
        job.guildId,
        job.userId ?? null,
        JSON.stringify(job.messageIds),
        JSON.stringify([...new Set(job.authorIds)]),
        JSON.stringify(job.names ?? []),
        JSON.stringify(job.quotes ?? []),
      ],
    );
  }

  /** The job while it is pending; null once done (or unknown). */
  async pending(id: string): Promise<RedactionJob | null> {
    const [row] = await sql(
      this.em,
      `select * from memory_redaction where id = ? and done_at is null`,
      [id],
    );
    return row ? jobFromRow(row) : null;
  }

  /** Every pending job, oldest first. */
  async allPending(limit = 1000): Promise<RedactionJob[]> {
    const rows = await sql(
      this.em,
      `select * from memory_redaction where done_at is null order by created_at limit ?`,
      [limit],
    );
    return rows.map(jobFromRow);
  }

  /** Marks the job done; a `forget`'s names and quote hashes are not kept past it. */
  async done(id: string): Promise<void> {
    await sql(
      this.em,
      `update memory_redaction set done_at = now(), names = '[]'::jsonb, quotes = '[]'::jsonb
       where id = ?`,
      [id],
    );
  }

  /** Of the messages, those no pending `forget` job removed. */
  async notForgotten(guildId: string, messageIds: string[]): Promise<string[]> {
    if (!messageIds.length) return [];
    const rows = await sql(
      this.em,
      `select m.id from jsonb_array_elements_text(?::jsonb) as m(id) where not exists (
         select 1 from memory_redaction r where r.guild_id = ? and r.user_id is not null
         and r.done_at is null and jsonb_exists(r.message_ids, m.id))`,
      [JSON.stringify(messageIds), guildId],
    );
    return rows.map((r) => r.id as string);
  }

  async failed(id: string, error: string): Promise<void> {
    await sql(
      this.em,
      `update memory_redaction set attempts = attempts + 1, last_error = ? where id = ?`,
      [error.slice(0, 2000), id],
    );
  }
}
