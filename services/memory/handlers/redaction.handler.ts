import { Controller } from '@nestjs/common';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { Durables, Streams } from '@dirigent/contracts';
import {
  PermanentError,
  type DurableEventOptions,
  type JetStreamContext,
} from '@dirigent/messaging';
import { occurrence, Reactor } from '@dirigent/reactor';
import { REDACTION } from '../application/redaction-queue';

/**
 * Redaction jobs' timers, handed to memory's reactor (the job `redaction`, in
 * `RedactMemory`). A short ack wait kept alive while the job runs: after a SIGKILL the
 * delivery comes back within seconds; a failed job is retried with backoff.
 */
@Controller()
export class RedactionHandlers {
  constructor(private readonly reactor: Reactor) {}

  @EventPattern(REDACTION.subject, {
    stream: Streams.timerFired,
    durable: Durables.memoryRedaction,
    ackWaitMs: 5_000,
    workingEveryMs: 1_500,
    maxDeliver: 200,
    backoffMs: [500, 1000, 2000, 5000],
    concurrency: 4,
  } satisfies DurableEventOptions)
  async redact(@Ctx() ctx: JetStreamContext) {
    const outcomes = await this.reactor.offer(occurrence('timer', ctx.subject, ctx.envelope));
    if (!outcomes.length) throw new PermanentError(`unknown memory timer ${ctx.envelope.type}`);
  }
}
