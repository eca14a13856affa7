import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { EpochCloseDue, type EpochClosed } from '@dirigent/contracts';
import { epochCloseDue, epochId, outlineEpoch } from '@dirigent/memory-domain';
import { Reactor } from '@dirigent/reactor';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { EPOCH_CLOSE, EpochTimer } from '../adapters/epoch-timer';
import { EpochRepository } from '../adapters/postgres/epoch.repository';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { MemoryConfig } from '../config';
import { EpochEvents } from './epoch-events';
import { Indexer } from './indexer';
import { CLOCK, type Clock } from './ports';
import { RedactionQueue } from './redaction-queue';
import { epochLoreId, EpochSummarizer, summaryMessage } from './summarize-epoch';

/**
 * The reactor job `epoch-close`, on the channel's durable timer (re-armed by every
 * message): closes a channel's epoch once it has been silent for the gap. The epoch's id comes from
 * its first message, the row and the messages' assignment commit together, and the event
 * is published with the epoch id as `Nats-Msg-Id` and marked published afterwards: a crash
 * at any point (a SIGKILL while the timer is pending, between commit and publish) neither
 * loses nor doubles the epoch. A message deleted while the summary was being written is
 * caught after the commit (its tombstone) and redacted like any other deletion.
 */
@Injectable()
export class CloseEpoch {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly epochs: EpochRepository,
    private readonly lore: LoreRepository,
    private readonly events: EpochEvents,
    private readonly timer: EpochTimer,
    private readonly indexer: Indexer,
    private readonly summarizer: EpochSummarizer,
    private readonly redactions: RedactionQueue,
    @Inject(CLOCK) private readonly now: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
    reactor: Reactor,
  ) {
    reactor.job({
      name: 'epoch-close',
      trigger: EPOCH_CLOSE,
      parse: EpochCloseDue.create,
      run: (due) => this.run(due),
    });
  }

  async run({ guildId, channelId }: EpochCloseDue): Promise<void> {
    await this.events.publishPending(guildId, channelId);
    const open = (await this.messages.openEpoch(guildId, channelId)).map(summaryMessage);
    if (!open.length) return;
    const gap = this.config.DIRIGENT_EPOCH_GAP_MS;
    const lastAt = Math.max(...open.map((m) => m.at));
    if (!epochCloseDue(lastAt, gap, this.now())) {
      // A message handled out of order armed an earlier alarm: wait for the real silence.
      await this.timer.arm(guildId, channelId, lastAt + gap, true);
      return;
    }
    const outline = outlineEpoch(open);
    const id = epochId(channelId, open[0].messageId);
    const told = await this.summarizer.summarize(guildId, open);
    const event: EpochClosed = {
      epochId: id,
      guildId,
      channelId,
      startAt: new Date(outline.startAt).toISOString(),
      endAt: new Date(outline.endAt).toISOString(),
      messageCount: outline.messageCount,
      participants: outline.participants,
      summary: told.summary,
      topics: told.topics,
    };
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
          new Date(outline.endAt),
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
    const deleted = await this.messages.tombstoned(guildId, told.sourceIds);
    if (deleted.length) {
      await this.redactions.enqueue({
        id: `epoch:${id}`,
        guildId,
        messageIds: deleted,
        authorIds: [],
      });
    }
    await this.events.publishPending(guildId, channelId);
  }
}
