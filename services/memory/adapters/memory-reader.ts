import { Injectable } from '@nestjs/common';
import type { MemoryItem, MemoryReader } from '@dirigent/memory-domain';
import { SearchMemory } from '../application/search-memory';
import { dossiersRead, factItem, factsRead } from './postgres/dossier.repository';
import { epochItem, epochsRead } from './postgres/epoch.repository';
import { strongestRead } from './postgres/highlight.repository';
import { loreRead } from './postgres/lore.repository';
import { recentRead, sampleRead } from './postgres/message.repository';
import { ReadBatch } from './postgres/read-batch';
import { ms } from './postgres/sql';

/**
 * The lenses' read port over the memory tables and the hybrid search. A lens's table reads
 * go out together (`ReadBatch`): one round trip per context, not one per read.
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

  /** A dossier as one item: its curated body, else its current facts. */
  async dossiers(guildId: string, userIds: string[]): Promise<MemoryItem[]> {
    if (!userIds.length) return [];
    const [rows, facts] = await Promise.all([
      this.batch.run(dossiersRead(guildId, userIds)),
      this.batch.run(factsRead(guildId, userIds, true)),
    ]);
    return rows.map((d) => {
      const own = facts.filter((f) => f.userId === d.user_id);
      const text =
        d.body ||
        own.map((f) => factItem(f, d.user_name).text).join('. ') ||
        `${d.message_count} messages`;
      return {
        layer: 'dossiers' as const,
        id: `dossier-${d.user_id}`,
        authorId: d.user_id,
        authorName: d.user_name ?? undefined,
        text,
        at: ms(d.last_seen_at) ?? 0,
      };
    });
  }

  lore(guildId: string, limit: number) {
    return this.batch.run(loreRead(guildId, limit));
  }

  async epochs(guildId: string, q: { limit: number; channelId?: string }) {
    return (await this.batch.run(epochsRead(guildId, q.channelId, q.limit))).map(epochItem);
  }

  highlights(guildId: string, q: { limit: number; kinds?: string[] }) {
    return this.batch.run(strongestRead(guildId, q.limit, q.kinds));
  }

  sample(guildId: string, q: { limit: number; seed: number }) {
    return this.batch.run(sampleRead(guildId, q.limit, q.seed));
  }
}
