import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { MessageDeleted } from '@dirigent/contracts';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { HighlightRepository } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { Indexer } from './indexer';

/** A deleted Discord message leaves every layer that holds its text, and search. */
@Injectable()
export class DeleteMessage {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly dossiers: DossierRepository,
    private readonly indexer: Indexer,
  ) {}

  async run(e: MessageDeleted): Promise<void> {
    const removed = await this.em.transactional(async () => {
      const row = await this.messages.remove(e.guildId, e.messageId);
      if (row) await this.dossiers.uncount(e.guildId, row.author_id);
      const highlights = await this.highlights.removeByMessages(e.guildId, [e.messageId]);
      const facts = await this.dossiers.removeFactsFrom(e.guildId, [e.messageId]);
      return { highlights, facts };
    });
    await this.indexer.remove(e.guildId, 'archive', [e.messageId]);
    await this.indexer.remove(e.guildId, 'highlights', removed.highlights);
    await this.indexer.remove(e.guildId, 'dossiers', removed.facts);
  }
}
