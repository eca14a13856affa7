/**
 * Runs tasks one at a time per key, in the order they were submitted, and different keys in
 * parallel — at most `limit` keys at once, if given. A task waiting for its key (or for one of
 * the `limit` places) holds nothing, so a key whose task is slow delays only its own key:
 * handlers therefore take every delivery at once and let the queue decide what runs, instead
 * of capping the deliveries in hand (which a single slow key could fill).
 *
 * @example
 * const queue = new KeyedQueue(16);
 * await queue.run(channelId, () => handle(event));
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit = Infinity) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.limited(task));
    this.tails.set(key, next);
    const cleanup = () => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    };
    next.then(cleanup, cleanup);
    return next;
  }

  /** Keys with a task queued or running. */
  get size(): number {
    return this.tails.size;
  }

  /** Runs `task` in one of the `limit` places, first come first served. */
  private async limited<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.running++;
    try {
      return await task();
    } finally {
      // The place goes straight to the next waiter (running stays the same), or is freed.
      const wake = this.waiting.shift();
      if (wake) wake();
      else this.running--;
    }
  }
}
