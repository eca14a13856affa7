import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { MemoryForgetRequest, MemoryForgetResult } from '@dirigent/contracts';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { HighlightRepository } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { Indexer } from './indexer';

/** `Subjects.memory.forget`: one user's messages, highlights, facts and dossier in one guild. */
@Injectable()
export class ForgetUser {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly dossiers: DossierRepository,
    private readonly indexer: Indexer,
  ) {}

  async run(r: MemoryForgetRequest): Promise<MemoryForgetResult> {
    const gone = await this.em.transactional(async () => {
      const messageIds = await this.messages.removeByAuthor(r.guildId, r.userId);
      const highlightIds = await this.highlights.removeByAuthor(r.guildId, r.userId);
      const { facts, dossiers } = await this.dossiers.forget(r.guildId, r.userId);
      return { messageIds, highlightIds, facts, dossiers };
    });
    await this.indexer.remove(r.guildId, 'archive', gone.messageIds);
    await this.indexer.remove(r.guildId, 'highlights', gone.highlightIds);
    await this.indexer.remove(r.guildId, 'dossiers', gone.facts);
    return {
      removed:
        gone.messageIds.length + gone.highlightIds.length + gone.facts.length + gone.dossiers,
    };
  }
}
