import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  Durables,
  MessageCreated,
  MessageDeleted,
  ReactionChanged,
  Streams,
  Subjects,
} from '@dirigent/contracts';
import type { DurableEventOptions, JetStreamContext } from '@dirigent/messaging';
import { DeleteMessage } from '../application/delete-message';
import { IngestMessage } from '../application/ingest-message';
import { RecordReaction } from '../application/record-reaction';
import { observeIngested } from '../adapters/metrics';

/** One durable on the Discord events stream; the kinds memory keeps are dispatched by subject. */
export const DISCORD_EVENTS_CONSUMER: DurableEventOptions = {
  stream: Streams.discordEvents,
  durable: Durables.memoryDiscordEvents,
  ackWaitMs: 30_000,
  maxDeliver: 10,
  backoffMs: [250, 1000, 5000, 15000],
  // Many deliveries in flight so that message.created can be written in batches (see
  // IngestMessage: each is acked only once its batch committed).
  concurrency: 512,
  maxAckPending: 1024,
};

@Controller()
export class DiscordEventHandlers {
  private readonly log = new Logger('memory:discord-events');

  constructor(
    private readonly ingest: IngestMessage,
    private readonly remove: DeleteMessage,
    private readonly reactions: RecordReaction,
  ) {}

  @EventPattern(Subjects.discord.evtAll, DISCORD_EVENTS_CONSUMER)
  async handle(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    // dirigent.discord.evt.<guildId>.<channelId>.<kind>
    const kind = ctx.subject.split('.').slice(5).join('.');
    switch (kind) {
      case 'message.created': {
        const m = MessageCreated.create(data);
        await this.ingest.run(m);
        return observeIngested(m.createdAt);
      }
      case 'message.deleted':
        return this.remove.run(MessageDeleted.create(data));
      case 'reaction.added':
        return this.reactions.run(ReactionChanged.create(data), true);
      case 'reaction.removed':
        return this.reactions.run(ReactionChanged.create(data), false);
      default:
        if (ctx.deliveryCount === 1 && !/^(typing|member)\./.test(kind)) {
          this.log.debug(`ignoring ${kind}`);
        }
        return;
    }
  }
}
