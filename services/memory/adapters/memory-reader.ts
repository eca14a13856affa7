import { Injectable } from '@nestjs/common';
import {
  visibleWith,
  type AudienceScope,
  type MemoryItem,
  type MemoryReader,
} from '@dirigent/memory-domain';
import { SearchMemory } from '../application/search-memory';
import { dossiersRead, factItem, factsRead } from './postgres/dossier.repository';
import { epochItem, epochsRead } from './postgres/epoch.repository';
import { strongestRead } from './postgres/highlight.repository';
import { loreRead } from './postgres/lore.repository';
import { recentRead, sampleRead } from './postgres/message.repository';
import { ReadBatch } from './postgres/read-batch';
import { ms } from './postgres/sql';

const NONE: ReadonlySet<string> = new Set();

/**
 * The lenses' read port over the memory tables and the hybrid search. A lens's table reads
 * go out together (`ReadBatch`): one round trip per context, not one per read. Each read
 * leaves out the channels its scope hides in its SQL, before its limit.
 */
@Injectable()
export class PostgresMemoryReader implements MemoryReader {
  constructor(
    private readonly batch: ReadBatch,
    private readonly search_: SearchMemory,
  ) {}

  recent(guildId: string, q: Parameters<MemoryReader['recent']>[1]) {
    return this.batch.run(recentRead(guildId, q));
  }

  search(guildId: string, query: string, q: Parameters<MemoryReader['search']>[2]) {
    return this.search_.search(guildId, query, q);
  }

  /**
   * A dossier as one item: its curated body, else its current facts. Where the body drew
   * on a hidden channel, only the facts the scope may show (each from one message).
   */
  async dossiers(guildId: string, userIds: string[], scope?: AudienceScope): Promise<MemoryItem[]> {
    if (!userIds.length) return [];
    const hidden = scope?.hiddenChannelIds ?? NONE;
    const [rows, facts] = await Promise.all([
      this.batch.run(dossiersRead(guildId, userIds)),
      this.batch.run(factsRead(guildId, userIds, true)),
    ]);
    return rows.map((d) => {
      const bodySources = (d.source_channel_ids as string[] | undefined) ?? [];
      const body = visibleWith(hidden, { sourceChannelIds: bodySources }) ? d.body : '';
      const own = facts.filter(
        (f) => f.userId === d.user_id && visibleWith(hidden, { channelId: f.channelId }),
      );
      const text =
        body ||
        own.map((f) => factItem(f, d.user_name).text).join('. ') ||
        `${d.message_count} messages`;
      const sources = body
        ? bodySources
        : [...new Set(own.flatMap((f) => (f.channelId ? [f.channelId] : [])))];
      return {
        layer: 'dossiers' as const,
        id: `dossier-${d.user_id}`,
        authorId: d.user_id,
        authorName: d.user_name ?? undefined,
        text,
        at: ms(d.last_seen_at) ?? 0,
        ...(sources.length ? { sourceChannelIds: sources } : {}),
      };
    });
  }

  lore(guildId: string, limit: number, scope?: AudienceScope) {
    return this.batch.run(loreRead(guildId, limit, scope?.hiddenChannelIds));
  }

  async epochs(guildId: string, q: Parameters<MemoryReader['epochs']>[1]) {
    return (
      await this.batch.run(epochsRead(guildId, q.channelId, q.limit, q.hiddenChannelIds))
    ).map(epochItem);
  }

  highlights(guildId: string, q: Parameters<MemoryReader['highlights']>[1]) {
    return this.batch.run(strongestRead(guildId, q.limit, q.kinds, q.hiddenChannelIds));
  }

  sample(guildId: string, q: Parameters<MemoryReader['sample']>[1]) {
    return this.batch.run(sampleRead(guildId, q.limit, q.seed, q.hiddenChannelIds));
  }
}
