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
  /** Cached states that may be behind: caught up from their version on next use. */
  private readonly stale = new Set<string>();
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

  /**
   * The aggregate's current state: from memory, caught up with the commits after the cached
   * version when it may be behind, or rebuilt from all its events.
   */
  async state(subject: string): Promise<Cached<S>> {
    const cached = this.cache.get(subject);
    if (cached && !this.stale.has(subject)) return cached;
    this.stale.delete(subject);
    const initial = { state: this.decider.initialState(), version: 0 };
    let base = cached ?? initial;
    let commits;
    try {
      // A store that lost commits (a reset stream) is read again from the start.
      if (cached && (await this.store.version(subject)) < cached.version) base = initial;
      commits = await this.store.loadCommits<E>(subject, base.version);
    } catch (e) {
      if (cached) this.stale.add(subject);
      throw e;
    }
    let { state, version } = base;
    for (const c of commits) {
      state = c.envelope.data.events.reduce(this.decider.evolve, state);
      version = c.seq;
    }
    const current = { state, version };
    // Not if a newer state was cached meanwhile (a command of this process appended).
    const now = this.cache.get(subject);
    if (!now || now === cached || now.version < version) this.cache.set(subject, current);
    return current;
  }

  /**
   * The version of the cached state, without reading the store; undefined when nothing is
   * cached or the cached state is already due to be caught up on next use.
   */
  cachedVersion(subject: string): number | undefined {
    return this.stale.has(subject) ? undefined : this.cache.get(subject)?.version;
  }

  /** The cached state may be behind (another process may have written): catch up on next use. */
  invalidate(subject?: string): void {
    if (subject) {
      if (this.cache.has(subject)) this.stale.add(subject);
    } else {
      for (const s of this.cache.keys()) this.stale.add(s);
    }
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
        if (e instanceof ConcurrencyError) this.stale.add(subject);
        else this.cache.delete(subject);
        if (!(e instanceof ConcurrencyError) || attempt >= this.maxAttempts) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 5)));
      }
    }
  }
}
