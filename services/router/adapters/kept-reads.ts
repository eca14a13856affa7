/**
 * Reads kept per key until this process writes the key: for tables only the router writes
 * (an agent's persona versions, a guild's learned adjustments), so a kept read is what the
 * table holds. A write changes or drops its key's read once committed; a read started
 * before that commit is changed or dropped with it (its entry is made when the read
 * starts), so nothing older than a write is served after it. A failed read is not kept.
 */
export class KeptReads<V> {
  private readonly held = new Map<string, Promise<V>>();
  /** Writes of a key in flight, and whether two were at once (then they drop it). */
  private readonly writes = new Map<string, { n: number; overlapped: boolean }>();

  constructor(private readonly max = 10_000) {}

  get(key: string, read: () => Promise<V>): Promise<V> {
    const kept = this.held.get(key);
    if (kept) return kept;
    return this.keep(key, read());
  }

  /** After a write of `key` has committed (also when it failed: it may have). */
  dropAfter<T>(key: string, write: Promise<T>): Promise<T> {
    return this.after(key, write, () => undefined);
  }

  /**
   * After a write of `key` has committed: the kept read as `change` makes it from what the
   * write gave (`undefined`: dropped). Two writes of a key at once drop it.
   */
  async after<T>(
    key: string,
    write: Promise<T>,
    change: (written: T) => ((kept: V) => V) | undefined,
  ): Promise<T> {
    let w = this.writes.get(key);
    if (!w) this.writes.set(key, (w = { n: 0, overlapped: false }));
    if (w.n++ > 0) w.overlapped = true;
    let written: T;
    try {
      written = await write;
    } catch (e) {
      this.held.delete(key);
      throw e;
    } finally {
      if (--w.n === 0) this.writes.delete(key);
    }
    const kept = this.held.get(key);
    if (kept) {
      const f = w.overlapped ? undefined : change(written);
      if (f) this.keep(key, kept.then(f));
      else this.held.delete(key);
    }
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
