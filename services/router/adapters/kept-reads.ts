/**
 * How long a kept read is served as it is: other router replicas write the same tables, and
 * this process learns of their writes only by reading again. From half of it on, a read is
 * also made in the background for the next decision, so steady traffic never waits on it.
 */
export const KEPT_MAX_AGE_MS = 5_000;

interface Held<V> {
  value: Promise<V>;
  /** When the read began. */
  at: number;
}

/**
 * Reads kept per key for tables only the router writes (an agent's persona versions, a
 * guild's learned adjustments). This process's own writes change or drop their key's read
 * once committed; a read started before that commit is changed or dropped with it (its
 * entry is made when the read starts), and a background read that a write overlapped is
 * thrown away, so nothing older than this process's write is served after it. Another
 * replica's write is seen within {@link KEPT_MAX_AGE_MS}. A failed read is not kept.
 */
export class KeptReads<V> {
  private readonly held = new Map<string, Held<V>>();
  /** The last write of each key in flight (settled either way), the next one's turn. */
  private readonly writes = new Map<string, Promise<void>>();
  /** Bumped when a write of the key starts and when it ends. */
  private readonly generations = new Map<string, number>();
  private readonly refreshing = new Set<string>();

  constructor(
    private readonly max = 10_000,
    private readonly maxAgeMs = KEPT_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, read: () => Promise<V>): Promise<V> {
    const kept = this.held.get(key);
    if (kept) {
      const age = this.now() - kept.at;
      if (age < this.maxAgeMs) {
        if (age >= this.maxAgeMs / 2) this.refresh(key, read);
        return kept.value;
      }
    }
    return this.keep(key, read());
  }

  /** After a write of `key` has committed (also when it failed: it may have). */
  async dropAfter<T>(key: string, write: Promise<T>): Promise<T> {
    this.bump(key);
    try {
      return await write;
    } finally {
      this.bump(key);
      this.held.delete(key);
    }
  }

  /**
   * Runs `write` after this process's earlier writes of `key` (one at a time, so their
   * changes come in the order they committed), then the kept read is as `change` makes it
   * from what the write gave (`undefined`: dropped; a failed write drops it).
   */
  async after<T>(
    key: string,
    write: () => Promise<T>,
    change: (written: T) => ((kept: V) => V) | undefined,
  ): Promise<T> {
    const before = this.writes.get(key);
    const run = (before ?? Promise.resolve()).then(write);
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.writes.set(key, done);
    this.bump(key);
    let written: T;
    try {
      written = await run;
    } catch (e) {
      this.held.delete(key);
      throw e;
    } finally {
      this.bump(key);
      if (this.writes.get(key) === done) this.writes.delete(key);
    }
    const kept = this.held.get(key);
    const f = kept && change(written);
    if (f) this.keep(key, kept.value.then(f), kept.at);
    else this.held.delete(key);
    return written;
  }

  /** Reads `key` again in the background; kept only if no write of it overlapped. */
  private refresh(key: string, read: () => Promise<V>): void {
    if (this.refreshing.has(key) || this.writes.has(key)) return;
    this.refreshing.add(key);
    const generation = this.generations.get(key) ?? 0;
    const at = this.now();
    const value = read();
    value
      .then(
        () => {
          if ((this.generations.get(key) ?? 0) === generation && !this.writes.has(key))
            this.keep(key, value, at);
        },
        () => undefined,
      )
      .finally(() => this.refreshing.delete(key));
  }

  private bump(key: string): void {
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    if (this.generations.size > this.max)
      this.generations.delete(this.generations.keys().next().value!);
  }

  private keep(key: string, value: Promise<V>, at = this.now()): Promise<V> {
    this.held.delete(key);
    const held = { value, at };
    this.held.set(key, held);
    value.catch(() => this.held.get(key) === held && this.held.delete(key));
    if (this.held.size > this.max) this.held.delete(this.held.keys().next().value!);
    return value;
  }
}
