import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { withoutForgotten, type Forgotten } from '@dirigent/memory-domain';
import { EpochRepository } from '../adapters/postgres/epoch.repository';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { EpochEvents } from './epoch-events';
import { Indexer } from './indexer';
import { epochLoreId, epochRecord, EpochSummarizer, summaryMessage } from './summarize-epoch';

/** Attempts at writing an epoch again while its messages keep changing underneath. */
const ATTEMPTS = 5;

const sameIds = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/**
 * A closed epoch written again from the messages that remain after a deletion or `forget`:
 * summary, topics, participants and counts, the lore its summary named and its vectors —
 * or removed when nothing remains. The model call happens outside the transaction; the
 * write checks, under the epoch's row lock, that the messages are still the ones
 * summarised (another deletion meanwhile: summarise again).
 */
@Injectable()
export class ReviseEpoch {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly epochs: EpochRepository,
    private readonly lore: LoreRepository,
    private readonly summarizer: EpochSummarizer,
    private readonly indexer: Indexer,
    private readonly events: EpochEvents,
  ) {}

  /**
   * After a `forget`, the `forgotten` user's names and the messages quoting them are left
   * out of what the summary is written from.
   */
  async run(guildId: string, epochId: string, forgotten?: Forgotten): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (await this.attempt(guildId, epochId, forgotten)) return;
    }
    throw new Error(`epoch ${epochId} kept changing while it was revised`);
  }

  private async attempt(guildId: string, epochId: string, forgotten?: Forgotten) {
    const remaining = (await this.messages.epochMessages(guildId, epochId))
      .map(summaryMessage)
      .map((m) => (forgotten ? { ...m, content: withoutForgotten(m.content, forgotten) } : m));
    const ids = remaining.map((m) => m.messageId);
    if (!remaining.length) return this.remove(guildId, epochId);
    const told = await this.summarizer.summarize(guildId, remaining);
    const record = epochRecord(remaining, told);
    const texts = [`${told.summary} ${told.topics.join(' ')}`, ...told.lore];
    const embedded = await this.indexer.queryMany(guildId, texts);
    const written = await this.em.transactional(async () => {
      const row = await this.epochs.lock(guildId, epochId);
      if (!row) return { ok: true, channelId: null };
      const now = (await this.messages.epochMessages(guildId, epochId)).map((r) => r.message_id);
      if (!sameIds(now, ids)) return { ok: false, channelId: null };
      await this.epochs.revise(epochId, record, told.sourceIds);
      const oldLore = await this.lore.removeByEpoch(guildId, epochId);
      await this.indexer.remove(guildId, 'lore', oldLore);
      for (const [i, text] of told.lore.entries()) {
        const at = new Date(record.endAt);
        await this.lore.add(guildId, epochLoreId(epochId, i), text, epochId, at, told.sourceIds);
      }
      if (embedded) {
        const refIds = [epochId, ...told.lore.map((_, i) => epochLoreId(epochId, i))];
        await this.indexer.store(
          guildId,
          embedded.model,
          refIds.map((refId, i) => ({
            layer: i === 0 ? ('epochs' as const) : ('lore' as const),
            refId,
            vector: embedded.vectors[i],
          })),
        );
      } else {
        // No embedder: the old vector must not keep finding the epoch by what it said.
        await this.indexer.remove(guildId, 'epochs', [epochId]);
      }
      return { ok: true, channelId: row.channel_id as string };
    });
    if (written.channelId) await this.events.publishPending(guildId, written.channelId);
    return written.ok;
  }

  /** Nothing of the epoch remains: the epoch, its lore, its vectors and its event go. */
  private async remove(guildId: string, epochId: string): Promise<boolean> {
    const gone = await this.em.transactional(async () => {
      const row = await this.epochs.lock(guildId, epochId);
      if (!row) return { ok: true, seq: null };
      if ((await this.messages.epochMessages(guildId, epochId)).length) {
        return { ok: false, seq: null };
      }
      const seq = await this.epochs.remove(epochId);
      const lore = await this.lore.removeByEpoch(guildId, epochId);
      await this.indexer.remove(guildId, 'lore', lore);
      await this.indexer.remove(guildId, 'epochs', [epochId]);
      return { ok: true, seq };
    });
    await this.events.unpublish(gone.seq);
    return gone.ok;
  }
}
