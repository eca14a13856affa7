import type { Logger } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { GuildIndex } from './guild-index';
import { outsideLane } from './postgres/query-lane';
import { sql, type Row } from './postgres/sql';

/** Rows another replica may commit out of sequence order are looked for this far back. */
export const LOOKBACK = 2_000;
/** How often the table (and the deletions) are looked at for what others wrote. */
export const FOLLOW_MS = 1_000;
/** How far before its last look a look at other replicas' deletions reaches. */
const DELETIONS_LOOKBACK_MS = 60_000;

/** The guilds a replica holds, as the follower sees them. */
export interface FollowedGuilds {
  /** How many guilds are held (none: nothing to follow). */
  readonly size: number;
  /** The guild's index, unless it is not held (or was evicted). */
  held(guildId: string): GuildIndex | undefined;
  add(guildId: string, rows: Row[]): Promise<void>;
  remove(guildId: string, messageIds: readonly string[]): void;
}

/**
 * Keeps the guilds a replica holds in step with what other replicas write: every
 * `FOLLOW_MS`, the messages deleted or forgotten through another replica, and (memory's
 * `queries` role, where no ingest adds to them) one read of the rows committed since the
 * last look, whatever the number of guilds held. In the `all` role each guild catches up
 * with the table on its own searches instead (`ArchiveIndex.get`).
 */
export class ArchiveFollower {
  private followedSeq?: number;
  private followingTable?: Promise<void>;
  private timer?: NodeJS.Timeout;
  /** The database's time of the last look at the deletions, and the jobs seen since. */
  private deletionsSeenAt?: Date;
  private readonly deletionsSeen = new Map<string, number>();
  private followingDeletions?: Promise<void>;

  constructor(
    private readonly em: EntityManager,
    private readonly guilds: FollowedGuilds,
    private readonly log: Logger,
    /** Whether the table is followed too, not only the deletions. */
    private readonly followsTable: boolean,
  ) {}

  /**
   * Starts the looks; with the table, from its head as of now, which the caller awaits
   * before loading any guild: what a load misses (committed after its last page) comes
   * after that head.
   */
  async start(): Promise<void> {
    this.timer = setInterval(() => this.look(), FOLLOW_MS);
    this.timer.unref();
    if (this.followsTable) await outsideLane(() => this.fromHead());
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private look(): void {
    if (this.followsTable) {
      this.followingTable ??= outsideLane(() => this.table())
        .catch((e: Error) => this.log.warn(`archive not followed: ${e.message}`))
        .finally(() => (this.followingTable = undefined));
    }
    this.followingDeletions ??= outsideLane(() => this.deletions())
      .catch((e: Error) => this.log.warn(`deletions not followed: ${e.message}`))
      .finally(() => (this.followingDeletions = undefined));
  }

  private async fromHead(): Promise<void> {
    const [head] = await sql(
      this.em.fork(),
      `select coalesce(max(seq), 0) as seq from memory_message`,
    );
    this.followedSeq ??= Number(head.seq);
  }

  /**
   * The rows committed since the last look (and `LOOKBACK` before it, for commits out of
   * sequence order), for every guild held: a ready guild's index takes those it lacks, a
   * loading one's takes those after its last (applied once its load is done). Looks again
   * at once while a look is full (a burst).
   */
  private async table(): Promise<void> {
    if (this.followedSeq === undefined) return this.fromHead();
    for (;;) {
      const seen = await sql(
        this.em.fork(),
        `select seq, guild_id, message_id from memory_message where seq > ? order by seq limit ?`,
        [Math.max(0, this.followedSeq - LOOKBACK), LOOKBACK * 4],
      );
      for (const r of seen) this.followedSeq = Math.max(this.followedSeq, Number(r.seq));
      const wanted = seen.filter((r) => {
        const g = this.guilds.held(r.guild_id as string);
        if (!g) return false;
        return g.ready ? !g.knows(r.message_id) : Number(r.seq) > g.lastSeq;
      });
      if (wanted.length) {
        const rows = await sql(
          this.em.fork(),
          `select seq, guild_id, message_id, channel_id, author_id, author_name, content, created_at
           from memory_message where seq in (select (jsonb_array_elements_text(?::jsonb))::bigint)
           order by seq`,
          [JSON.stringify(wanted.map((r) => String(r.seq)))],
        );
        const byGuild = new Map<string, Row[]>();
        for (const r of rows) {
          const list = byGuild.get(r.guild_id as string) ?? [];
          list.push(r);
          byGuild.set(r.guild_id as string, list);
        }
        for (const [guildId, list] of byGuild) await this.guilds.add(guildId, list);
      }
      if (seen.length < LOOKBACK * 4) return;
    }
  }

  /**
   * Drops from the held guilds the messages deleted or forgotten through another replica
   * (their redaction jobs, `memory_redaction`, recorded since the last look): the replica
   * that erased them dropped them from its own index at once, and the others' searches
   * must not rank, nor follow a second round through, what is gone. Looks back
   * `DELETIONS_LOOKBACK_MS` past its last look, for a deleting transaction that committed
   * after others had begun later; jobs already applied are skipped.
   */
  private async deletions(): Promise<void> {
    if (!this.guilds.size) return;
    const since = this.deletionsSeenAt
      ? new Date(this.deletionsSeenAt.getTime() - DELETIONS_LOOKBACK_MS)
      : null;
    const rows = await sql(
      this.em.fork(),
      `select t.at, r.id, r.guild_id, r.message_ids from (select now() as at) t
       left join memory_redaction r on ?::timestamptz is not null and r.created_at > ?::timestamptz`,
      [since, since],
    );
    const at = new Date(rows[0].at as string);
    for (const r of rows) {
      if (!r.id || this.deletionsSeen.has(r.id as string)) continue;
      this.deletionsSeen.set(r.id as string, at.getTime());
      this.guilds.remove(r.guild_id as string, r.message_ids as string[]);
    }
    for (const [id, seenAt] of this.deletionsSeen) {
      if (seenAt < at.getTime() - 2 * DELETIONS_LOOKBACK_MS) this.deletionsSeen.delete(id);
    }
    this.deletionsSeenAt = at;
  }
}
