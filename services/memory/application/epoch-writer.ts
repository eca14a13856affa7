import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { EpochClosed } from '@dirigent/contracts';
import { epochId, type SummaryMessage } from '@dirigent/memory-domain';
import { EpochRepository } from '../adapters/postgres/epoch.repository';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { Indexer } from './indexer';
import { epochLoreId, epochRecord, EpochSummarizer, type EpochSummary } from './summarize-epoch';

/**
 * A channel's open messages made into an epoch: summarized by the model (or offline), then
 * the epoch's row, its messages' assignment and its lore in one transaction, then the summary
 * and the lore indexed.
 */
@Injectable()
export class EpochWriter {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly epochs: EpochRepository,
    private readonly lore: LoreRepository,
    private readonly summarizer: EpochSummarizer,
    private readonly indexer: Indexer,
  ) {}

  /** Writes the epoch of `open` (its first message names it); returns what was written. */
  async write(
    guildId: string,
    channelId: string,
    open: SummaryMessage[],
  ): Promise<{ event: EpochClosed; told: EpochSummary }> {
    const id = epochId(channelId, open[0].messageId);
    const told = await this.summarizer.summarize(guildId, open);
    const event: EpochClosed = { epochId: id, guildId, channelId, ...epochRecord(open, told) };
    await this.em.transactional(async () => {
      await this.epochs.record(guildId, event, told.sourceIds);
      await this.messages.assignEpoch(
        guildId,
        open.map((m) => m.messageId),
        id,
      );
      for (const [i, text] of told.lore.entries()) {
        await this.lore.add(
          guildId,
          epochLoreId(id, i),
          text,
          id,
          new Date(event.endAt),
          told.sourceIds,
        );
      }
    });
    await this.indexer.index(guildId, [
      { layer: 'epochs', refId: id, text: `${told.summary} ${told.topics.join(' ')}` },
      ...told.lore.map((text, i) => ({
        layer: 'lore' as const,
        refId: epochLoreId(id, i),
        text,
      })),
    ]);
    return { event, told };
  }
}
