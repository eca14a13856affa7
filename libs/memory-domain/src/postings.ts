import { HEAP } from './heap-bytes';

/**
 * A growable list of (slot, value) pairs: one per dimension or feature of an inverted index.
 * Both arrays are views of one buffer: an index holds hundreds of thousands of short lists,
 * and a second buffer per list cost about a quarter of a short list's heap.
 */
export class Postings {
  ids: Int32Array;
  values: Float32Array;
  length = 0;

  constructor(capacity = 16) {
    const buffer = new ArrayBuffer(capacity * 8);
    this.ids = new Int32Array(buffer, 0, capacity);
    this.values = new Float32Array(buffer, capacity * 4, capacity);
  }

  /** The heap it holds (its buffer with its capacity, and the two views). */
  get bytes(): number {
    return HEAP.object + 1.5 * HEAP.typedArray + this.ids.buffer.byteLength;
  }

  push(id: number, value: number): void {
    if (this.length === this.ids.length) {
      const capacity = this.ids.length * 2;
      const buffer = new ArrayBuffer(capacity * 8);
      const ids = new Int32Array(buffer, 0, capacity);
      const values = new Float32Array(buffer, capacity * 4, capacity);
      ids.set(this.ids);
      values.set(this.values);
      this.ids = ids;
      this.values = values;
    }
    this.ids[this.length] = id;
    this.values[this.length++] = value;
  }
}

/**
 * The partial score above which about `wanted` of the touched slots lie (a histogram of
 * `scores[slot]`, no sort); -Infinity when all of them are wanted.
 */
export function cutoff(scores: Float32Array, touched: readonly number[], wanted: number): number {
  if (touched.length <= wanted) return -Infinity;
  let min = Infinity;
  let max = -Infinity;
  for (const slot of touched) {
    const s = scores[slot];
    if (s < min) min = s;
    if (s > max) max = s;
  }
  if (max <= min) return -Infinity;
  const bins = new Uint32Array(1024);
  const width = (max - min) / bins.length;
  const bin = (s: number) => Math.min(bins.length - 1, Math.floor((s - min) / width));
  for (const slot of touched) bins[bin(scores[slot])]++;
  let above = 0;
  for (let b = bins.length - 1; b >= 0; b--) {
    above += bins[b];
    if (above >= wanted) return min + b * width;
  }
  return -Infinity;
}
