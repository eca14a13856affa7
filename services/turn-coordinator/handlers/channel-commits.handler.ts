import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Durables, EnvelopeTypes, Streams, type Envelope } from '@dirigent/contracts';
import type { Commit } from '@dirigent/event-store';
import { JetStreamContext, type EventOptions } from '@dirigent/messaging';
import type { ChannelEvent } from '@dirigent/turn-domain';
import { CHANNEL_TOPIC, ReactToCommit } from '../application/react-to-commit';

/**
 * A short ack wait, so that a commit whose reactor was SIGKILLed is redelivered to the next
 * instance within it: a restarted instance waits for those before it pulls (awaitAbandoned),
 * so the ack wait is the least time from a kill to the next grant (goal ≤ 2 s, with the
 * start-up in it). A handler that is still busy (queued behind its channel, or slow) says so
 * every {@link WORKING_EVERY_MS}.
 */
export const REACTOR_ACK_WAIT_MS = 1000;
/** In-progress signals of a busy handler: three within an ack wait, so one lost costs nothing. */
export const WORKING_EVERY_MS = 300;

/** The reactor: a durable consumer of the channel commits that performs their effects. */
@Controller()
export class ChannelCommitsHandler {
  constructor(private readonly react: ReactToCommit) {}

  @EventPattern(CHANNEL_TOPIC, {
    stream: Streams.eventStore,
    durable: Durables.coordinatorReactor,
    maxDeliver: 20,
    ackWaitMs: REACTOR_ACK_WAIT_MS,
    workingEveryMs: WORKING_EVERY_MS,
    backoffMs: [100, 500, 2000, 5000],
    // A restarted or taken-over reactor gets a dead holder's commits back before newer ones.
    awaitAbandoned: true,
    // The reactor reads NATS (the store, its KV buckets) and no database: no ORM request
    // context, which cost more per commit than reacting to a commit without effects.
    around: false,
  } satisfies EventOptions)
  commit(@Payload() _data: unknown, @Ctx() ctx: JetStreamContext) {
    const env = ctx.envelope as Envelope<Commit<ChannelEvent>>;
    if (env.type !== EnvelopeTypes.commit) return undefined;
    return this.react.run(ctx.subject, ctx.seq, env);
  }
}
