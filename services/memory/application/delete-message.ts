import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { MessageDeleted } from '@dirigent/contracts';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { HighlightRepository } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { Indexer } from './indexer';
import { RedactMemory } from './redact';
import { RedactionQueue } from './redaction-queue';

/**
 * A deleted Discord message leaves every layer that holds its text, and search: the
 * archive, highlights, facts and vectors in one transaction that also records a redaction
 * job; the job then revisits what was written from the message (epoch summaries and
 * topics, lore, dossier bodies) and is retried until done, whatever restarts do.
 */
@Injectable()
export class DeleteMessage {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly dossiers: DossierRepository,
    private readonly indexer: Indexer,
    private readonly queue: RedactionQueue,
    private readonly redact: RedactMemory,
  ) {}

  async run(e: MessageDeleted): Promise<void> {
    const jobId = `message:${e.guildId}:${e.messageId}`;
    const removed = await this.em.transactional(async () => {
      const row = await this.messages.remove(e.guildId, e.messageId);
      if (row) await this.dossiers.uncount(e.guildId, row.author_id);
      const highlights = await this.highlights.removeByMessages(e.guildId, [e.messageId]);
      const facts = await this.dossiers.removeFactsFrom(e.guildId, [e.messageId]);
      await this.indexer.remove(e.guildId, 'archive', [e.messageId]);
      await this.indexer.remove(e.guildId, 'highlights', highlights);
      await this.indexer.remove(e.guildId, 'dossiers', facts);
      if (row) {
        await this.queue.record({
          id: jobId,
          guildId: e.guildId,
          messageIds: [e.messageId],
          authorIds: [row.author_id],
        });
      }
      return row !== null;
    });
    // A redelivery after a crash finds the message gone but its job maybe still pending.
    if (removed || (await this.queue.pending(jobId))) {
      await this.redact.start({ id: jobId, guildId: e.guildId });
    }
  }
}
