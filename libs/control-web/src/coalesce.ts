/**
 * Runs `work(key)` for announced keys, one run per key at a time: keys announced while
 * their run is going get exactly one more run after it (which sees everything announced
 * so far). Bursts of commits thus cost at most two reads, with no timer.
 *
 * @example
 * const live = new KeyedCoalescer((channelId) => pushChannel(channelId));
 * live.announce('123'); live.announce('123'); // one push now, one after it
 */
export class KeyedCoalescer {
  /** Keys being worked on, and whether they were announced again meanwhile. */
  private readonly running = new Map<string, boolean>();

  constructor(
    private readonly work: (key: string) => Promise<void>,
    private readonly onError: (key: string, e: Error) => void = () => undefined,
  ) {}

  announce(key: string): void {
    if (this.running.has(key)) {
      this.running.set(key, true);
      return;
    }
    this.running.set(key, false);
    void this.drain(key);
  }

  clear(): void {
    this.running.clear();
  }

  private async drain(key: string): Promise<void> {
    do {
      this.running.set(key, false);
      await this.work(key).catch((e: Error) => this.onError(key, e));
    } while (this.running.get(key));
    this.running.delete(key);
  }
}
