import { EntityRepository } from '@mikro-orm/postgresql';
import type { EpochClosed, MemoryEpoch } from '@dirigent/contracts';
import type { MemoryItem } from '@dirigent/memory-domain';
import type { MemoryEpochRow } from './epoch.entity';
import { fullTextIds, ms, rowsByIds, sql, type Row } from './sql';

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

/** Conversation epochs: summaries over silence-bounded windows of a channel. */
export class EpochRepository extends EntityRepository<MemoryEpochRow> {
  /** Inserts the epoch once (its id is deterministic); false when it already existed. */
  async record(guildId: string, e: Omit<EpochClosed, 'guildId'>): Promise<boolean> {
    const rows = await sql(
      this.em,
      `insert into memory_epoch (id, guild_id, channel_id, start_at, end_at, message_count, participants, summary, topics)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb) on conflict (id) do nothing returning id`,
      [
        e.epochId,
        guildId,
        e.channelId,
        new Date(e.startAt),
        new Date(e.endAt),
        e.messageCount,
        JSON.stringify(e.participants),
        e.summary,
        JSON.stringify(e.topics),
      ],
    );
    return rows.length > 0;
  }

  /** Closed epochs of the channel whose event has not been published yet. */
  async unpublished(guildId: string, channelId: string): Promise<Row[]> {
    return sql(
      this.em,
      `select * from memory_epoch where guild_id = ? and channel_id = ? and published_at is null order by end_at`,
      [guildId, channelId],
    );
  }

  async markPublished(id: string): Promise<void> {
    await sql(this.em, `update memory_epoch set published_at = now() where id = ?`, [id]);
  }

  async list(guildId: string, channelId: string | undefined, limit: number): Promise<Row[]> {
    return sql(
      this.em,
      `select * from memory_epoch where guild_id = ? ${channelId ? 'and channel_id = ?' : ''}
       order by end_at desc limit ?`,
      channelId ? [guildId, channelId, limit] : [guildId, limit],
    );
  }

  byIds(guildId: string, ids: string[]): Promise<Row[]> {
    return rowsByIds(this.em, 'memory_epoch', guildId, ids);
  }

  fullText(guildId: string, query: string, limit: number) {
    return fullTextIds(this.em, 'memory_epoch', 'end_at', guildId, query, limit);
  }
}
