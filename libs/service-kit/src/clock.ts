import { Global, Module } from '@nestjs/common';

/**
 * The time, as every service's use cases read it: injected, never `Date.now()` inside
 * them, so a test can hold it still and a decision replays with the time it was made.
 *
 * @example
 * constructor(private readonly clock: Clock) {}
 * const dueAt = this.clock.now() + delayMs;
 */
export abstract class Clock {
  /** Epoch milliseconds. */
  abstract now(): number;
}

/** The system's clock. */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}

/** Provides `Clock` once for the whole service (imported by the core module). */
@Global()
@Module({ providers: [{ provide: Clock, useClass: SystemClock }], exports: [Clock] })
export class ClockModule {}
