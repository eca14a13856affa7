/** A ranked slot of the lexical index. */
export interface LexicalHit {
  slot: number;
  score: number;
}

/** The `k` best (slot, score) pairs seen, by a min-heap. */
export class TopK {
  private readonly heap: LexicalHit[] = [];

  constructor(private readonly k: number) {}

  /** The score an offer must beat to be kept: -Infinity until `k` are held. */
  get floor(): number {
    return this.heap.length < this.k ? -Infinity : this.k > 0 ? this.heap[0].score : Infinity;
  }

  offer(slot: number, score: number): void {
    const h = this.heap;
    if (h.length < this.k) {
      h.push({ slot, score });
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p].score <= h[i].score) break;
        [h[p], h[i]] = [h[i], h[p]];
        i = p;
      }
    } else if (this.k > 0 && score > h[0].score) {
      h[0] = { slot, score };
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].score < h[m].score) m = l;
        if (r < h.length && h[r].score < h[m].score) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
  }

  sorted(): LexicalHit[] {
    return [...this.heap].sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
}
