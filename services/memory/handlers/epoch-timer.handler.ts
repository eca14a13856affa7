import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Durables, EpochCloseDue, Streams } from '@dirigent/contracts';
import type { DurableEventOptions } from '@dirigent/messaging';
import { EPOCH_CLOSE_SUBJECT } from '../adapters/epoch-timer';
import { CloseEpoch } from '../application/close-epoch';

@Controller()
export class EpochTimerHandlers {
  constructor(private readonly closeEpoch: CloseEpoch) {}

  @EventPattern(EPOCH_CLOSE_SUBJECT, {
    stream: Streams.timerFired,
    durable: Durables.memoryTimers,
    // Summarising can take a model call.
    ackWaitMs: 60_000,
    maxDeliver: 20,
    backoffMs: [1000, 5000, 15000, 60000],
    concurrency: 4,
  } satisfies DurableEventOptions)
  close(@Payload() e: EpochCloseDue) {
    return this.closeEpoch.run(e);
  }
}
