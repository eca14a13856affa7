import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { Audience } from '@dirigent/contracts';
import { hiddenFrom, type ChannelAudience } from '@dirigent/memory-domain';
import { ReadBatch } from './read-batch';
import { sql, type Read } from './sql';

/** A channel's audience as the ingest last reported it, at `at`. */
export interface AudienceReport {
  guildId: string;
  channelId: string;
  audience: Audience;
  name?: string;
  audienceKey?: string;
  parentChannelId?: string;
  at: Date;
}

/**
 * The channels the audience rule needs to answer in `targetChannelId`: the guild's private
 * channels, the threads (whose parent may be private) and the target itself. A few rows
 * per guild.
 */
export function audiencesRead(guildId: string, targetChannelId: string): Read<ChannelAudience[]> {
  return {
    sql: `select channel_id, audience, parent_channel_id from memory_channel
      where guild_id = ?
        and (audience = 'private' or parent_channel_id is not null or channel_id = ?)`,
    params: [guildId, targetChannelId],
    answer: (rows) =>
      rows.map((r) => ({
        channelId: r.channel_id,
        audience: r.audience,
        ...(r.parent_channel_id ? { parentChannelId: r.parent_channel_id } : {}),
      })),
  };
}

/**
 * `memory_channel`: each channel's current audience. A report older than the one stored
 * changes nothing (deliveries arrive out of order), so the latest word of the ingest holds.
 */
@Injectable()
export class ChannelAudienceStore {
  constructor(private readonly em: EntityManager) {}

  /** Records reports, one row per channel (the latest of those given wins). */
  async record(reports: AudienceReport[]): Promise<void> {
    const latest = new Map<string, AudienceReport>();
    for (const r of reports) {
      const key = `${r.guildId}:${r.channelId}`;
      const had = latest.get(key);
      if (!had || had.at.getTime() <= r.at.getTime()) latest.set(key, r);
    }
    if (!latest.size) return;
    const rows = [...latest.values()];
    await sql(
      this.em,
      `insert into memory_channel as c
         (guild_id, channel_id, name, audience, audience_key, parent_channel_id, updated_at)
       select x.guild_id, x.channel_id, x.name, x.audience, x.audience_key, x.parent_channel_id,
              x.updated_at
       from jsonb_to_recordset(?::jsonb) as x(guild_id varchar, channel_id varchar, name varchar,
         audience varchar, audience_key varchar, parent_channel_id varchar, updated_at timestamptz)
       on conflict (guild_id, channel_id) do update set
         name = coalesce(excluded.name, c.name),
         audience = excluded.audience,
         audience_key = coalesce(excluded.audience_key, c.audience_key),
         parent_channel_id = coalesce(excluded.parent_channel_id, c.parent_channel_id),
         updated_at = excluded.updated_at
       where c.updated_at <= excluded.updated_at`,
      [
        JSON.stringify(
          rows.map((r) => ({
            guild_id: r.guildId,
            channel_id: r.channelId,
            name: r.name ?? null,
            audience: r.audience,
            audience_key: r.audienceKey ?? null,
            parent_channel_id: r.parentChannelId ?? null,
            updated_at: r.at.toISOString(),
          })),
        ),
      ],
    );
  }
}

/** The audience rule's input for one read: which channels the target may not show. */
@Injectable()
export class AudienceScopes {
  constructor(private readonly batch: ReadBatch) {}

  /**
   * The channels a read made to answer in `channelId` may not show (`hiddenFrom` over the
   * channels' current audiences): one small read, batched with the lens's own.
   */
  async hiddenFor(guildId: string, channelId: string): Promise<Set<string>> {
    return hiddenFrom(channelId, await this.batch.run(audiencesRead(guildId, channelId)));
  }
}
