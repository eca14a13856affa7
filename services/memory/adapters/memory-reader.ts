import { Injectable } from '@nestjs/common';
import type { MemoryItem, MemoryReader } from '@dirigent/memory-domain';
import { SearchMemory } from '../application/search-memory';
import { DossierRepository, factItem } from './postgres/dossier.repository';
import { EpochRepository, epochItem } from './postgres/epoch.repository';
import { HighlightRepository } from './postgres/highlight.repository';
import { LoreRepository } from './postgres/lore.repository';
import { MessageRepository } from './postgres/message.repository';
import { ms } from './postgres/sql';

/** The lenses' read port over the memory tables and the hybrid search. */
@Injectable()
export class PostgresMemoryReader implements MemoryReader {
  constructor(
    private readonly messages: MessageRepository,
    private readonly search_: SearchMemory,
    private readonly dossierRepo: DossierRepository,
    private readonly loreRepo: LoreRepository,
    private readonly epochRepo: EpochRepository,
    private readonly highlightRepo: HighlightRepository,
  ) {}

  recent(guildId: string, q: Parameters<MemoryReader['recent']>[1]) {
    return this.messages.recent(guildId, q);
  }

  search(guildId: string, query: string, q: Parameters<MemoryReader['search']>[2]) {
    return this.search_.search(guildId, query, q);
  }

  /** A dossier as one item: its curated body, else its current facts. */
  async dossiers(guildId: string, userIds: string[]): Promise<MemoryItem[]> {
    const [rows, facts] = await Promise.all([
      this.dossierRepo.getMany(guildId, userIds),
      this.dossierRepo.facts(guildId, userIds, true),
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
    return this.loreRepo.list(guildId, limit);
  }

  async epochs(guildId: string, q: { limit: number; channelId?: string }) {
    return (await this.epochRepo.list(guildId, q.channelId, q.limit)).map(epochItem);
  }

  highlights(guildId: string, q: { limit: number; kinds?: string[] }) {
    return this.highlightRepo.strongest(guildId, q.limit, q.kinds);
  }

  sample(guildId: string, q: { limit: number; seed: number }) {
    return this.messages.sample(guildId, q.limit, q.seed);
  }
}
