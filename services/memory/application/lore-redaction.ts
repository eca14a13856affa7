import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { mentionsForgotten, type Forgotten } from '@dirigent/memory-domain';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { PhraseStore } from '../adapters/postgres/phrase.store';
import { Indexer } from './indexer';

/**
 * A redaction's step over lore and the phrases it is coalesced from: which lore names or
 * quotes a forgotten user, and the removal of lore drawn on the redacted messages (or
 * naming the user) with the phrases that would coalesce it again and its vectors.
 */
@Injectable()
export class LoreRedaction {
  constructor(
    private readonly em: EntityManager,
    private readonly lore: LoreRepository,
    private readonly phrases: PhraseStore,
    private readonly indexer: Indexer,
  ) {}

  /** The ids of the guild's lore that names or quotes the forgotten user. */
  async naming(guildId: string, seen: Forgotten): Promise<string[]> {
    return (await this.lore.mentioning(guildId, [...seen.names, seen.userId]))
      .filter((l) => mentionsForgotten(l.text, seen))
      .map((l) => l.id as string);
  }

  /**
   * Lore rows before phrase rows, each in one ordered statement (the lock order of
   * coalescing), and the removed lore's vectors, in one transaction.
   */
  async remove(
    guildId: string,
    messageIds: string[],
    naming: string[],
    userId: string | undefined,
    names: string[],
  ): Promise<void> {
    await this.em.transactional(async () => {
      const lore = await this.lore.removeDrawingOn(guildId, messageIds, naming);
      await this.phrases.forget(guildId, messageIds, userId, names);
      await this.indexer.remove(guildId, 'lore', lore);
    });
  }
}
