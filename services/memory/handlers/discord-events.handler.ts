import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { RequestContext } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import {
  ChannelUpdated,
  Durables,
  MessageCreated,
  MessageDeleted,
  ReactionChanged,
  Streams,
  Subjects,
} from '@dirigent/contracts';
import type { EventOptions, JetStreamContext } from '@dirigent/messaging';
import { ChannelAudienceStore } from '../adapters/postgres/channel-audience.store';
import { DeleteMessage } from '../application/delete-message';
import { IngestMessage } from '../application/ingest-message';
import { RecordReaction } from '../application/record-reaction';
import { observeIngested } from '../adapters/metrics';

/**
 * One durable on the Discord events stream; the kinds memory keeps are dispatched by
 * subject. Without the transport's per-delivery ORM context (`around: false`): a created
 * message is written in its batch's own context, and the other kinds open one here.
 */
export const DISCORD_EVENTS_CONSUMER: EventOptions = {
  stream: Streams.discordEvents,
  durable: Durables.memoryDiscordEvents,
  ackWaitMs: 30_000,
  maxDeliver: 10,
  backoffMs: [250, 1000, 5000, 15000],
  // Many deliveries in flight so that message.created is written in large batches (see
  // IngestMessage: each is acked only once its batch committed): two batches of
  // INGEST_BATCH.maxBatch in hand, as many more pending at the server.
  concurrency: 2048,
  maxAckPending: 4096,
  around: false,
};

@Controller()
export class DiscordEventHandlers {
  private readonly log = new Logger('memory:discord-events');

  constructor(
    private readonly em: EntityManager,
    private readonly ingest: IngestMessage,
    private readonly remove: DeleteMessage,
    private readonly reactions: RecordReaction,
    private readonly channels: ChannelAudienceStore,
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
        return this.inContext(() => this.remove.run(MessageDeleted.create(data)));
      case 'reaction.added':
        return this.inContext(() => this.reactions.run(ReactionChanged.create(data), true));
      case 'reaction.removed':
        return this.inContext(() => this.reactions.run(ReactionChanged.create(data), false));
      case 'channel.updated': {
        // The channel's audience from now on: reads for other channels hide its past too.
        const c = ChannelUpdated.create(data);
        return this.inContext(() =>
          this.channels.record([{ ...c, at: new Date(ctx.envelope.at) }]),
        );
      }
      default:
        if (ctx.deliveryCount === 1 && !/^(typing|member)\./.test(kind)) {
          this.log.debug(`ignoring ${kind}`);
        }
        return;
    }
  }

  /** A fresh ORM request context for one delivery (the transport opens none here). */
  private inContext<T>(fn: () => Promise<T>): Promise<T> {
    return RequestContext.create(this.em, fn);
  }
}
