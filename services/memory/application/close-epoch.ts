import { Inject, Injectable } from '@nestjs/common';
import { EpochCloseDue } from '@dirigent/contracts';
import { epochCloseDue } from '@dirigent/memory-domain';
import { declareJob, type DeclaredJob } from '@dirigent/reactor';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { EPOCH_CLOSE, EpochTimer } from '../adapters/epoch-timer';
import { ClosingStore } from '../adapters/postgres/closing.store';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { MemoryConfig } from '../config';
import { EpochEvents } from './epoch-events';
import { EpochWriter } from './epoch-writer';
import { RedactionQueue } from './redaction-queue';
import { summaryMessage } from './summarize-epoch';

/** How often a `forget` looks whether the closes it waits for have ended. */
const SETTLED_POLL_MS = 50;

/**
 * The reactor job `epoch-close`, on the channel's durable timer (re-armed by every
 * message): closes a channel's epoch once it has been silent for the gap. The epoch's id comes from
 * its first message, the row and the messages' assignment commit together, and the event
 * is published with the epoch id as `Nats-Msg-Id` and marked published afterwards: a crash
 * at any point (a SIGKILL while the timer is pending, between commit and publish) neither
 * loses nor doubles the epoch. A message deleted while the summary was being written is
 * caught after the commit (its tombstone) and redacted like any other deletion, unless a
 * pending `forget` took it: that job waits for the closes running in its guild.
 */
@Injectable()
export class CloseEpoch {
  constructor(
    private readonly messages: MessageRepository,
    private readonly writer: EpochWriter,
    private readonly events: EpochEvents,
    private readonly timer: EpochTimer,
    private readonly redactions: RedactionQueue,
    private readonly closing: ClosingStore,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {}

  /** The reactor job `epoch-close` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob({
        name: 'epoch-close',
        trigger: EPOCH_CLOSE,
        parse: EpochCloseDue.create,
        run: (due) => this.run(due),
      }),
    ];
  }

  /** The close, recorded as running (in any replica) from before it reads its channel. */
  async run(due: EpochCloseDue): Promise<void> {
    const running = await this.closing.begin(due.guildId, due.channelId);
    try {
      await this.close(due);
    } finally {
      await running.end().catch(() => undefined);
    }
  }

  /**
   * Resolves once every close of the guild running now, in any replica, has ended. A
   * `forget` waits for them: a close may have read the user's messages, or others' naming
   * them, before the forget, and write its epoch after the forget's job looked for epochs.
   * A close that stopped saying it is alive died with its process; one running longer than
   * two model calls and a margin is not waited for either.
   */
  async settled(guildId: string): Promise<void> {
    const staleMs = 2 * this.config.DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS + 5_000;
    const until = Date.now() + staleMs;
    while ((await this.closing.running(guildId, staleMs)) > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, SETTLED_POLL_MS));
    }
  }

  private async close({ guildId, channelId }: EpochCloseDue): Promise<void> {
    await this.events.publishPending(guildId, channelId);
    const open = (await this.messages.openEpoch(guildId, channelId)).map(summaryMessage);
    if (!open.length) return;
    const gap = this.config.DIRIGENT_EPOCH_GAP_MS;
    const lastAt = Math.max(...open.map((m) => m.at));
    if (!epochCloseDue(lastAt, gap, this.clock.now())) {
      // A message handled out of order armed an earlier alarm: wait for the real silence.
      await this.timer.arm(guildId, channelId, lastAt + gap, true);
      return;
    }
    const { event, told } = await this.writer.write(guildId, channelId, open);
    const id = event.epochId;
    // Those a pending `forget` took are left to its job, which waits for this close and
    // writes the epoch without their names (which a plain revision would keep).
    const deleted = await this.redactions.notForgotten(
      guildId,
      await this.messages.tombstoned(guildId, told.sourceIds),
    );
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
