import {
  ConcurrencyError,
  type AppendMeta,
  type DomainEvent,
  type EventStore,
} from './event-store';

/** A pure aggregate: no I/O, no clock, no randomness (STYLE.md §2). */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: () => S;
  decide: (command: C, state: S) => E[];
  evolve: (state: S, event: E) => S;
}

export interface HandleResult<E, S> {
  events: E[];
  state: S;
  version: number;
}

interface Cached<S> {
  state: S;
  version: number;
}

/**
 * Load → decide → append, retried on a concurrency conflict. Keeps each aggregate's
 * state in memory (invalidated on conflict) and runs commands for one aggregate one at a
 * time in this process, so conflicts only come from other processes.
 *
 * @example
 * const handler = new CommandHandler(store, channelDecider);
 * const { events, state } = await handler.handle(subject, { type: 'SetMode', mode: 'chat' });
 */
export class CommandHandler<C, E extends DomainEvent, S> {
  private readonly cache = new Map<string, Cached<S>>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<C, E, S>,
    private readonly maxAttempts = 20,
  ) {}

  async handle(subject: string, command: C, meta: AppendMeta = {}): Promise<HandleResult<E, S>> {
    const previous = this.queues.get(subject) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.attempt(subject, command, meta));
    this.queues.set(subject, run);
    try {
      return await run;
    } finally {
      if (this.queues.get(subject) === run) this.queues.delete(subject);
    }
  }

  /** The aggregate's current state (from memory, or rebuilt from its events). */
  async state(subject: string): Promise<Cached<S>> {
    const cached = this.cache.get(subject);
    if (cached) return cached;
    const { version, events } = await this.store.load<E>(subject);
    const rebuilt = {
      state: events.reduce(this.decider.evolve, this.decider.initialState()),
      version,
    };
    this.cache.set(subject, rebuilt);
    return rebuilt;
  }

  /** Forget the cached state (another process may have written). */
  invalidate(subject?: string): void {
    if (subject) this.cache.delete(subject);
    else this.cache.clear();
  }

  private async attempt(
    subject: string,
    command: C,
    meta: AppendMeta,
  ): Promise<HandleResult<E, S>> {
    for (let attempt = 1; ; attempt++) {
      const { state, version } = await this.state(subject);
      const events = this.decider.decide(command, state);
      if (events.length === 0) return { events, state, version };
      try {
        const next = await this.store.append(subject, events, version, meta);
        const newState = events.reduce(this.decider.evolve, state);
        this.cache.set(subject, { state: newState, version: next });
        return { events, state: newState, version: next };
      } catch (e) {
        this.cache.delete(subject);
        if (!(e instanceof ConcurrencyError) || attempt >= this.maxAttempts) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 5)));
      }
    }
  }
}
