/**
 * Runs tasks one at a time per key, in the order they were submitted, and different keys in
 * parallel. Handlers use it so that a channel's inputs keep their order while many channels
 * are handled at once, whichever consumer they arrive on.
 *
 * @example
 * const queue = new KeyedQueue();
 * await queue.run(channelId, () => handle(event));
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(task);
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
}
