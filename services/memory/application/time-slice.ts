/**
 * A long loop's turns with the event loop: once `budgetMs` of work has run since the last
 * turn, `spent` says so and `next()` lets waiting searches answer before the loop goes on.
 * Counting rows instead made a turn as long as its rows were costly (500 vectors placed
 * in a vector index held the loop for about 100 ms).
 *
 * @example
 * const slice = new TimeSlice();
 * for (const row of rows) {
 *   if (slice.spent) await slice.next();
 *   index(row);
 * }
 */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly budgetMs = 4) {}

  get spent(): boolean {
    return performance.now() - this.started >= this.budgetMs;
  }

  async next(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
