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
  /** Features filed under two slots or more. */
  private readonly lists = new Map<number, Postings>();
  /**
   * Features filed under one slot only (most of a guild's 5-grams): its slot and weight in
   * one number (`pack`), a tenth of the heap of a list.
   */
  private readonly single = new Map<number, number>();
  private readonly budget: number;
  private acc = new Float32Array(1024);

  constructor(opts: FeatureIndexOptions = {}) {
    this.budget = opts.budget ?? 50_000;
  }

  /** Files a slot under its features (removal is the caller's: `accept` in a search). */
  add(slot: number, keys: Uint32Array, weights: Float32Array): void {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      let list = this.lists.get(key);
      if (!list) {
        const one = this.single.get(key);
        if (one === undefined && slot < PACKED_SLOTS) {
          this.single.set(key, pack(slot, weights[i]));
          continue;
        }
        this.lists.set(key, (list = new Postings(4)));
        if (one !== undefined) {
          this.single.delete(key);
          list.push(Math.floor(one / WEIGHT_BITS), unpackWeight(one));
        }
      }
      list.push(slot, weights[i]);
    }
    if (slot >= this.acc.length)
      this.acc = new Float32Array(Math.max(slot + 1, this.acc.length * 2));
  }

  /** An estimate of the heap it holds: one postings list per feature seen. */
  bytes(): number {
    let b = HEAP.typedArray + this.acc.byteLength;
    for (const list of this.lists.values()) b += HEAP.mapEntry + list.bytes;
    // A packed number is a heap number beside its entry.
    return b + this.single.size * (HEAP.mapEntry + 16);
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
    const acc = this.acc;
    const touched: number[] = [];
    let left = this.budget;
    // A feature of one slot first, as the shortest of lists (in the query's order).
    for (let i = 0; i < keys.length; i++) {
      const list = this.lists.get(keys[i]);
      if (list) {
        lists.push([list, weights[i]]);
        continue;
      }
      const one = this.single.get(keys[i]);
      if (one === undefined || left < 1) continue;
      left--;
      const slot = Math.floor(one / WEIGHT_BITS);
      if (acc[slot] === 0) {
        if (accept && !accept(slot)) continue;
        touched.push(slot);
      }
      acc[slot] += weights[i] * unpackWeight(one);
    }
    lists.sort((a, b) => a[0].length - b[0].length);
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

/** Slots a packed number holds exactly with a 32-bit weight (2^53 / 2^32). */
const PACKED_SLOTS = 2 ** 21;
const WEIGHT_BITS = 2 ** 32;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** A slot and its weight (as a 32-bit float, as a list keeps it) in one number. */
function pack(slot: number, weight: number): number {
  f32[0] = weight;
  return slot * WEIGHT_BITS + u32[0];
}

function unpackWeight(packed: number): number {
  u32[0] = packed % WEIGHT_BITS;
  return f32[0];
}
