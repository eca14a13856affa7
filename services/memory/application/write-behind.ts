interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface WriteBehindOptions {
  /** Items written together at most. */
  maxBatch: number;
  /** Batches being written at once (all but the first only when full). */
  maxConcurrent: number;
}

/**
 * Group commit: each caller hands in one item and waits; what arrives while a batch is
 * being written goes into the next one. A caller's promise settles only once its batch is
 * written (so a JetStream ack follows the commit: a SIGKILL loses nothing, it redelivers).
 * When a batch fails, its items are written again one by one, so that a bad item fails
 * only itself.
 *
 * @example
 * const buffer = new WriteBehind((events) => store(events), { maxBatch: 256, maxConcurrent: 2 });
 * await buffer.add(event); // resolved after the transaction holding it committed
 */
export class WriteBehind<T> {
  private readonly queue: Waiting<T>[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly opts: WriteBehindOptions,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // After the current burst of deliveries, so that they share a batch.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  /** Items waiting or being written. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * A batch starts when none is being written, or beside a running one once it is full:
   * what arrives meanwhile gathers into the next. Items handed in a few at a time (a
   * consumer that starts its deliveries in slices) otherwise went out as a batch per slice,
   * each paying the batch's fixed statements for a few dozen items.
   */
  private pump(): void {
    while (
      this.running < this.opts.maxConcurrent &&
      this.queue.length &&
      (this.running === 0 || this.queue.length >= this.opts.maxBatch)
    ) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.running++;
      void this.flush(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async flush(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.write(batch.map((w) => w.item));
      for (const w of batch) w.resolve();
      return;
    } catch (e) {
      if (batch.length === 1) {
        batch[0].reject(e);
        return;
      }
    }
    for (const w of batch) {
      try {
        await this.write([w.item]);
        w.resolve();
      } catch (e) {
        w.reject(e);
      }
    }
  }
}
