import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Durables, MomentsDue, Streams, Subjects } from '@dirigent/contracts';
import {
  PermanentError,
  type DurableEventOptions,
  type JetStreamContext,
} from '@dirigent/messaging';
import { occurrence, Reactor } from '@dirigent/reactor';
import { ExtractMoments } from '../application/extract-moments';
import { MOMENTS } from '../application/moment-batches';

/**
 * The moment extractor's inputs: each router decision (the exchange it finished, from its
 * inbound message on) and a channel's batch timer, handed to memory's reactor.
 */
@Controller()
export class MomentHandlers {
  constructor(
    private readonly moments: ExtractMoments,
    private readonly reactor: Reactor,
  ) {}

  @EventPattern(Subjects.router.decisionAll, {
    stream: Streams.routerEvents,
    durable: Durables.memoryRouterDecisions,
    deliverPolicy: 'new',
    ackWaitMs: 30_000,
    maxDeliver: 5,
    backoffMs: [1000, 5000],
    concurrency: 4,
  } satisfies DurableEventOptions)
  async decision(@Payload() data: Record<string, unknown>) {
    // A decision's other fields are the router's; the exchange needs only where and what.
    const { guildId, channelId } = MomentsDue.create(data);
    const inbound = typeof data.inboundMessageId === 'string' ? data.inboundMessageId : undefined;
    await this.moments.exchange(guildId, channelId, inbound);
  }

  // One batch at a time in a replica: concurrent batches of a guild's channels upsert the
  // same phrase rows (each waits for the other's locks) and take the event loop from the
  // ingest; on the 100,000-message bench, one at a time ingested 2,500-2,700 msg/s against
  // 1,960 with two, and finished the load's batches 10 s later.
  @EventPattern(MOMENTS.subject, {
    stream: Streams.timerFired,
    durable: Durables.memoryMoments,
    ackWaitMs: 60_000,
    maxDeliver: 10,
    backoffMs: [1000, 5000, 15000],
    concurrency: 1,
  } satisfies DurableEventOptions)
  async batch(@Ctx() ctx: JetStreamContext) {
    const outcomes = await this.reactor.offer(occurrence('timer', ctx.subject, ctx.envelope));
    if (!outcomes.length) throw new PermanentError(`unknown memory timer ${ctx.envelope.type}`);
  }
}
