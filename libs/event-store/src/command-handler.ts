import { randomUUID } from 'node:crypto';
import {
  ConcurrencyError,
  type AppendMeta,
  type DomainEvent,
  type EventStore,
} from './event-store';
import { foldAggregate, type SnapshotStore } from './snapshots';

/** A pure aggregate: no I/O, no clock, no randomness (CONTRIBUTING.md § Habits). */
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

export interface CommandHandlerOptions<S> {
  maxAttempts?: number;
  /** Snapshots of the state: a cold load reads the latest one and the commits after it. */
  snapshots?: SnapshotStore<S>;
  /**
   * A snapshot is written after this many commits were folded since the last one; unset, the
   * handler only reads them (another component writes them).
   */
  snapshotEvery?: number;
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
  /** Reads of the store under way, shared by every caller that asks meanwhile. */
  private readonly loading = new Map<string, Promise<Cached<S>>>();
  /** Commits folded into the cached state since its last snapshot, per aggregate. */
  private readonly sinceSnapshot = new Map<string, number>();
  private readonly maxAttempts: number;
  private readonly snapshotEvery: number;

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<C, E, S>,
    private readonly options: CommandHandlerOptions<S> = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 20;
    this.snapshotEvery = options.snapshotEvery ?? Infinity;
  }

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
    // Callers that ask while the store is being read share that read (a restart's first
    // inputs, checks and commits of a channel arrive together: one replay, not one each).
    const underway = this.loading.get(subject);
    if (underway) return underway;
    const read = this.read(subject, cached).finally(() => {
      if (this.loading.get(subject) === read) this.loading.delete(subject);
    });
    this.loading.set(subject, read);
    return read;
  }

  private async read(subject: string, cached: Cached<S> | undefined): Promise<Cached<S>> {
    this.stale.delete(subject);
    let loaded;
    try {
      // A store that lost commits (a reset stream) is read again from the start.
      const base =
        cached && (await this.store.version(subject)) >= cached.version ? cached : undefined;
      loaded = base ? await this.catchUp(subject, base) : await this.load(subject);
    } catch (e) {
      if (cached) this.stale.add(subject);
      throw e;
    }
    const current = { state: loaded.state, version: loaded.version };
    this.snapshotted(subject, current, loaded.commitId, loaded.folded, loaded.fresh);
    // Not if a newer state was cached meanwhile (a command of this process appended).
    const now = this.cache.get(subject);
    if (!now || now === cached || now.version < current.version) this.cache.set(subject, current);
    return current;
  }

  /** All of the aggregate: its snapshot and the commits after it, or every commit. */
  private async load(subject: string) {
    const f = await foldAggregate<E, S>(this.store, subject, this.decider, {
      snapshots: this.options.snapshots,
    });
    return { ...f, fresh: true };
  }

  /** The commits after a cached state. */
  private async catchUp(subject: string, base: Cached<S>) {
    let { state, version } = base;
    let commitId: string | undefined;
    const commits = await this.store.loadCommits<E>(subject, base.version);
    for (const c of commits) {
      state = c.envelope.data.events.reduce(this.decider.evolve, state);
      version = c.seq;
      commitId = c.envelope.id;
    }
    return { state, version, commitId, folded: commits.length, fresh: false };
  }

  /**
   * Counts `folded` more commits into the aggregate's state and writes a snapshot of it once
   * enough have been folded since the last one (`fresh`: the count starts again, from a load).
   */
  private snapshotted(
    subject: string,
    current: Cached<S>,
    commitId: string | undefined,
    folded: number,
    fresh = false,
  ): void {
    const snapshots = this.options.snapshots;
    if (!snapshots) return;
    const since = (fresh ? 0 : (this.sinceSnapshot.get(subject) ?? 0)) + folded;
    if (since >= this.snapshotEvery && commitId !== undefined && current.version > 0) {
      snapshots.write(subject, { version: current.version, commitId, state: current.state });
      this.sinceSnapshot.set(subject, 0);
    } else {
      this.sinceSnapshot.set(subject, since);
    }
  }

  /**
   * The cached state when it is known to be current (cached and not due to be caught up), else
   * undefined: what {@link state} answers without reading the store, synchronously.
   */
  currentState(subject: string): S | undefined {
    return this.stale.has(subject) ? undefined : this.cache.get(subject)?.state;
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
      if (this.cache.has(subject) || this.loading.has(subject)) this.markStale(subject);
    } else {
      for (const s of [...this.cache.keys(), ...this.loading.keys()]) this.markStale(s);
    }
  }

  /** Caught up on next use; a read already under way may be behind, so it is not shared. */
  private markStale(subject: string): void {
    this.stale.add(subject);
    this.loading.delete(subject);
  }

  private async attempt(
    subject: string,
    command: C,
    meta: AppendMeta,
  ): Promise<HandleResult<E, S>> {
    for (let attempt = 1; ; attempt++) {
      const fromMemory = this.cache.has(subject) && !this.stale.has(subject);
      const { state, version } = await this.state(subject);
      const events = this.decider.decide(command, state);
      if (events.length === 0) {
        // Nothing to append proves nothing about the store: a state held in memory may be
        // behind another replica's commits, or ahead of a stream that was reset, and the
        // command would be answered as done without being written. Confirmed by its version.
        if (!fromMemory || attempt >= this.maxAttempts) return { events, state, version };
        if ((await this.store.version(subject)) === version) return { events, state, version };
        this.markStale(subject);
        continue;
      }
      try {
        // The commit's id is known here, so that a snapshot can name it.
        const id = meta.id ?? randomUUID();
        const next = await this.store.append(subject, events, version, { ...meta, id });
        const newState = events.reduce(this.decider.evolve, state);
        const current = { state: newState, version: next };
        this.cache.set(subject, current);
        this.snapshotted(subject, current, id, 1);
        return { events, state: newState, version: next };
      } catch (e) {
        if (e instanceof ConcurrencyError) this.markStale(subject);
        else this.cache.delete(subject);
        if (!(e instanceof ConcurrencyError) || attempt >= this.maxAttempts) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 5)));
      }
    }
  }
}
