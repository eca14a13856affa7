/** A query's BM25 scores by slot, with the slots scored (`LexicalIndex.score`). */
export interface ScoreSheet {
  readonly scores: Float64Array;
  /**
   * The slots scored, in the order first scored: `touched[0, count)` (a typed array: a
   * plain one grown by `push` was about seven times the cost of the scoring loop itself).
   */
  readonly touched: Int32Array;
  count: number;
}

/**
 * The score buffers of an index's searches: its own pair, lent to one sheet at a time and
 * grown with the index; a search in another's turn (while it is lent) gets a new pair.
 */
export class ScoreSheets {
  private scores = new Float64Array(1024);
  private touched = new Int32Array(1024);
  private lent = false;

  /** A clear sheet for `size` slots. */
  take(size: number): ScoreSheet {
    if (this.lent) {
      return { scores: new Float64Array(size), touched: new Int32Array(size), count: 0 };
    }
    if (this.scores.length < size) {
      this.scores = new Float64Array(Math.max(size, this.scores.length * 2));
      this.touched = new Int32Array(this.scores.length);
    }
    this.lent = true;
    return { scores: this.scores, touched: this.touched, count: 0 };
  }

  /** Clears a sheet's scores (the own pair is lent to the next). */
  release(sheet: ScoreSheet): void {
    const { scores, touched, count } = sheet;
    for (let i = 0; i < count; i++) scores[touched[i]] = 0;
    sheet.count = 0;
    if (scores === this.scores) this.lent = false;
  }

  /** The bytes of the own pair. */
  bytes(): number {
    return this.scores.byteLength + this.touched.byteLength;
  }
}
