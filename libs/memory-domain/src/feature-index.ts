import { HEAP } from './heap-bytes';
import { cutoff, Postings } from './postings';

export interface FeatureIndexOptions {
  /**
   * Postings read a query at most, its rarest features first: a feature most texts share
   * (a common word, "ing>") costs a pass over the guild and tells little.
   */
  budget?: number;
}

/**
 * Candidates for a vector search by the features texts share (`hashedIndexFeatures`: stems
 * and 5-grams under their 32-bit keys), for an embedder whose vectors are hashed features:
 * its 512 coordinates are each shared by most texts, so lists by coordinate hold nearly
 * every text, while lists by feature are as short as the feature is rare. A query reads
 * its features' lists rarest first, within a budget of postings, and sums the products of
 * the weights; the best sums are the candidates, to be scored exactly against the full
 * vectors (`VectorIndex.rescore`). Slots are the caller's (the vector index's).
 *
 * @example
 * const f = hashedIndexFeatures('moving to Berlin');
 * features.add(vectors.add(f.vector), f.keys, f.weights);
 * const q = hashedIndexFeatures('she moved to berlin');
 * vectors.rescore(q.vector, features.candidates(q.keys, q.weights, 400), 10);
 */
export class FeatureIndex {
  private readonly lists = new Map<number, Postings>();
  private readonly budget: number;
  private acc = new Float32Array(1024);

  constructor(opts: FeatureIndexOptions = {}) {
    this.budget = opts.budget ?? 50_000;
  }

  /** Files a slot under its features (removal is the caller's: `accept` in a search). */
  add(slot: number, keys: Uint32Array, weights: Float32Array): void {
    for (let i = 0; i < keys.length; i++) {
      let list = this.lists.get(keys[i]);
      if (!list) this.lists.set(keys[i], (list = new Postings(4)));
      list.push(slot, weights[i]);
    }
    if (slot >= this.acc.length)
      this.acc = new Float32Array(Math.max(slot + 1, this.acc.length * 2));
  }

  /** An estimate of the heap it holds: one postings list per feature seen. */
  bytes(): number {
    let b = HEAP.typedArray + this.acc.byteLength;
    for (const list of this.lists.values()) b += HEAP.mapEntry + list.bytes;
    return b;
  }

  /**
   * Up to about `limit` slots with the best sums over the query's features (those `accept`
   * lets through), in no order.
   */
  candidates(
    keys: Uint32Array,
    weights: Float32Array,
    limit: number,
    accept?: (slot: number) => boolean,
  ): number[] {
    const lists: [Postings, number][] = [];
    for (let i = 0; i < keys.length; i++) {
      const list = this.lists.get(keys[i]);
      if (list) lists.push([list, weights[i]]);
    }
    lists.sort((a, b) => a[0].length - b[0].length);
    const acc = this.acc;
    const touched: number[] = [];
    let left = this.budget;
    for (const [{ ids, values, length }, w] of lists) {
      if (length > left) break;
      left -= length;
      for (let i = 0; i < length; i++) {
        const slot = ids[i];
        if (acc[slot] === 0) {
          if (accept && !accept(slot)) continue;
          touched.push(slot);
        }
        acc[slot] += w * values[i];
      }
    }
    const threshold = cutoff(acc, touched, limit);
    const out: number[] = [];
    for (const slot of touched) {
      if (acc[slot] >= threshold) out.push(slot);
      acc[slot] = 0;
    }
    return out;
  }
}
