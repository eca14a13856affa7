import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { RequestContext } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Durables, parseDiscordEventSubject, Streams, Subjects } from '@dirigent/contracts';
import { DiscordEventRoutes, type EventOptions, type JetStreamContext } from '@dirigent/messaging';
import { ChannelAudienceStore } from '../adapters/postgres/channel-audience.store';
import { DeleteMessage } from '../application/delete-message';
import { INGEST_BATCH, IngestMessage } from '../application/ingest-message';
import { RecordReaction } from '../application/record-reaction';
import { observeIngested } from '../adapters/metrics';

/**
 * One durable on the Discord events stream; the kinds memory keeps are dispatched by
 * their typed routes (`DiscordEventRoutes`). Without the transport's per-delivery ORM context (`around: false`): a created
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
  concurrency: 2 * INGEST_BATCH.maxBatch,
  maxAckPending: 4 * INGEST_BATCH.maxBatch,
  // A pull's deliveries, or a committed batch's freed slots, started a few ms at a time:
  // started all at once they held the event loop (and the searches behind it) for up to a
  // second on the memory-scale bench's burst.
  sliceMs: 4,
  around: false,
};

@Controller()
export class DiscordEventHandlers {
  private readonly log = new Logger('memory:discord-events');
  private readonly discord: DiscordEventRoutes;

  constructor(
    private readonly em: EntityManager,
    private readonly ingest: IngestMessage,
    private readonly remove: DeleteMessage,
    private readonly reactions: RecordReaction,
    private readonly channels: ChannelAudienceStore,
  ) {
    /**
     * The kinds memory keeps. A created message is written in its batch's own ORM context
     * (`IngestMessage`); each other kind opens one for its delivery.
     */
    this.discord = new DiscordEventRoutes(
      {
        'message.created': async (m) => {
          await this.ingest.run(m);
          observeIngested(m.createdAt);
        },
        'message.deleted': (d) => this.inContext(() => this.remove.run(d)),
        'reaction.added': (r) => this.inContext(() => this.reactions.run(r, true)),
        'reaction.removed': (r) => this.inContext(() => this.reactions.run(r, false)),
        // The channel's audience from now on: reads for other channels hide its past too.
        'channel.updated': (c, ctx) =>
          this.inContext(() => this.channels.record([{ ...c, at: new Date(ctx.envelope.at) }])),
      },
      (subject) => {
        const kind = parseDiscordEventSubject(subject)?.kind ?? subject;
        if (!/^(typing|member)\./.test(kind)) this.log.debug(`ignoring ${kind}`);
      },
    );
  }

  @EventPattern(Subjects.discord.evtAll, DISCORD_EVENTS_CONSUMER)
  handle(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    return this.discord.dispatch(data, ctx);
  }

  /** A fresh ORM request context for one delivery (the transport opens none here). */
  private inContext<T>(fn: () => Promise<T>): Promise<T> {
    return RequestContext.create(this.em, fn);
  }
}
