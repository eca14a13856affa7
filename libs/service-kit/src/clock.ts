import { Global, Module, type DynamicModule } from '@nestjs/common';

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
  /**
   * Calls `listener` whenever the clock jumps (what waits for a time looks again, e.g. the
   * durable timers); the system's clock never does.
   */
  onJump(listener: () => void): void {
    void listener;
  }
}

/** The system's clock. */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}

/**
 * A clock a test sets: it runs with the system's and {@link advance} moves it ahead, so a
 * use case that waits days (a re-ask period) is shown without sleeping.
 */
export class SettableClock extends Clock {
  private offset = 0;
  private readonly listeners: (() => void)[] = [];
  now(): number {
    return Date.now() + this.offset;
  }
  override onJump(listener: () => void): void {
    this.listeners.push(listener);
  }
  advance(ms: number): void {
    this.offset += ms;
    for (const l of this.listeners) l();
  }
}

/**
 * Provides `Clock` once for the whole service (imported by the core module): the system's,
 * or the one given (`CreateOptions.clock`).
 */
@Global()
@Module({})
export class ClockModule {
  static forRoot(clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: ClockModule,
      providers: [{ provide: Clock, useValue: clock }],
      exports: [Clock],
    };
  }
}
