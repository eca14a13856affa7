import { Injectable } from '@nestjs/common';
import type { MessageDeleted } from '@dirigent/contracts';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { HighlightRepository } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { EraseFromMemory } from './erase';

/**
 * A deleted Discord message leaves every layer that holds its text, and search: the
 * archive, highlights, facts and vectors in one transaction that also records a redaction
 * job; the job then revisits what was written from the message (epoch summaries and
 * topics, lore, dossier bodies) and is retried until done, whatever restarts do.
 */
@Injectable()
export class DeleteMessage {
  constructor(
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly dossiers: DossierRepository,
    private readonly erase: EraseFromMemory,
  ) {}

  async run(e: MessageDeleted): Promise<void> {
    const ids = [e.messageId];
    await this.erase.run(`message:${e.guildId}:${e.messageId}`, e.guildId, async () => {
      const row = await this.messages.remove(e.guildId, e.messageId);
      if (row) await this.dossiers.uncount(e.guildId, row.author_id);
      const highlightIds = await this.highlights.removeByMessages(e.guildId, ids);
      const facts = await this.dossiers.removeFactsFrom(e.guildId, ids);
      return {
        erased: { messageIds: ids, highlightIds, facts },
        job: row && { messageIds: ids, authorIds: [row.author_id] },
      };
    });
  }
}
