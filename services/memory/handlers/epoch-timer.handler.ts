import { Controller } from '@nestjs/common';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { Durables, Streams } from '@dirigent/contracts';
import {
  PermanentError,
  type DurableEventOptions,
  type JetStreamContext,
} from '@dirigent/messaging';
import { occurrence, Reactor } from '@dirigent/reactor';
import { EPOCH_CLOSE_SUBJECT } from '../adapters/epoch-timer';

/** Memory's timers, handed to its reactor (the job `epoch-close`, in `CloseEpoch`). */
@Controller()
export class EpochTimerHandlers {
  constructor(private readonly reactor: Reactor) {}

  @EventPattern(EPOCH_CLOSE_SUBJECT, {
    stream: Streams.timerFired,
    durable: Durables.memoryTimers,
    // Summarising can take a model call.
    ackWaitMs: 60_000,
    maxDeliver: 20,
    backoffMs: [1000, 5000, 15000, 60000],
    concurrency: 4,
  } satisfies DurableEventOptions)
  async close(@Ctx() ctx: JetStreamContext) {
    const outcomes = await this.reactor.offer(occurrence('timer', ctx.subject, ctx.envelope));
    if (!outcomes.length) throw new PermanentError(`unknown memory timer ${ctx.envelope.type}`);
  }
}
