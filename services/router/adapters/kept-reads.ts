/**
 * Reads kept per key until this process writes the key: for tables only the router writes
 * (an agent's persona versions, a guild's learned adjustments), so a kept read is what the
 * table holds. A write changes or drops its key's read once committed; a read started
 * before that commit is changed or dropped with it (its entry is made when the read
 * starts), so nothing older than a write is served after it. A failed read is not kept.
 */
export class KeptReads<V> {
  private readonly held = new Map<string, Promise<V>>();
  /** The last write of each key in flight (settled either way), the next one's turn. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(private readonly max = 10_000) {}

  get(key: string, read: () => Promise<V>): Promise<V> {
    const kept = this.held.get(key);
    if (kept) return kept;
    return this.keep(key, read());
  }

  /** After a write of `key` has committed (also when it failed: it may have). */
  async dropAfter<T>(key: string, write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
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
    let written: T;
    try {
      written = await run;
    } catch (e) {
      this.held.delete(key);
      throw e;
    } finally {
      if (this.writes.get(key) === done) this.writes.delete(key);
    }
    const kept = this.held.get(key);
    const f = kept && change(written);
    if (f) this.keep(key, kept.then(f));
    else this.held.delete(key);
    return written;
  }

  private keep(key: string, value: Promise<V>): Promise<V> {
    this.held.delete(key);
    this.held.set(key, value);
    value.catch(() => this.held.get(key) === value && this.held.delete(key));
    if (this.held.size > this.max) this.held.delete(this.held.keys().next().value!);
    return value;
  }
}
