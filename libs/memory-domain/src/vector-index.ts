import { HEAP } from './heap-bytes';
import { cutoff, Postings } from './postings';

export interface VectorIndexOptions {
  /**
   * Coordinates of each vector kept in the inverted lists: its largest by magnitude (0: no
   * lists, for an index searched by `exact` and `rescore` only).
   */
  perVector?: number;
  /** Coordinates of the query whose lists are read: its largest by magnitude. */
  perQuery?: number;
  /** Candidates (best partial scores) scored exactly, at least; never fewer than 8·k. */
  candidates?: number;
  /** Below this many vectors every one is scored exactly. */
  exactBelow?: number;
  /**
   * Unit vectors (every coordinate within ±1) kept as 16-bit fixed point: half the memory
   * of 32-bit floats, each coordinate within 1/65,534 of its value, so a dot product moves
   * by less than 1e-4 (`vector-index.unit.spec.ts`).
   */
  fixed16?: boolean;
}

/** The 16-bit fixed point's unit. */
const FIXED = 32_767;

export interface VectorHit {
  slot: number;
  score: number;
}

const BLOCK = 1024;

/** Indices of the `n` largest |v[i]| (non-zero only), largest first. */
function strongest(v: ArrayLike<number>, n: number): number[] {
  const idx: number[] = [];
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) idx.push(i);
  idx.sort((a, b) => Math.abs(v[b]) - Math.abs(v[a]) || a - b);
  return idx.slice(0, n);
}

/**
 * Nearest vectors by dot product (cosine for unit vectors), in process, without scoring
 * every vector: each vector is filed under its `perVector` strongest coordinates (inverted
 * lists, as a sparse retrieval index does); a query reads the lists of its `perQuery`
 * strongest coordinates, sums the partial dot products, and scores the best `candidates`
 * exactly against the full vectors. Exact whenever vectors have at most `perVector`
 * non-zero coordinates and queries at most `perQuery` (the hashed n-gram embedder's
 * short texts); for dense model vectors it is an approximation whose recall the memory
 * bench measures against {@link exact}. Below `exactBelow` vectors it is exhaustive.
 * Slots are never reused: a removed vector is only marked.
 *
 * @example
 * const index = new VectorIndex(512);
 * const slot = index.add(hashedEmbedding('moving to Berlin'));
 * index.search(hashedEmbedding('she moved to berlin'), 5); // [{ slot, score: 0.6… }]
 */
export class VectorIndex {
  private readonly blocks: (Float32Array | Int16Array)[] = [];
  private readonly fixed16: boolean;
  /** What a stored coordinate is worth (1, or 1/FIXED in fixed point). */
  private readonly unit: number;
  private readonly postings: Postings[];
  private dead = new Uint8Array(BLOCK);
  private count = 0;
  private removed = 0;
  private readonly perVector: number;
  private readonly perQuery: number;
  private readonly candidates: number;
  private readonly exactBelow: number;
  // Scratch space of a search, kept between searches.
  private acc = new Float32Array(0);

  constructor(
    readonly dimensions: number,
    opts: VectorIndexOptions = {},
  ) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new Error(`dimensions must be a positive integer, got ${dimensions}`);
    }
    this.perVector = opts.perVector ?? 64;
    this.perQuery = opts.perQuery ?? 48;
    this.candidates = opts.candidates ?? 1000;
    this.exactBelow = opts.exactBelow ?? 4096;
    this.fixed16 = opts.fixed16 ?? false;
    this.unit = this.fixed16 ? 1 / FIXED : 1;
    this.postings = Array.from({ length: dimensions }, () => new Postings());
  }

  /** Vectors added (removed ones included). */
  get size(): number {
    return this.count;
  }

  /** Vectors added and not removed. */
  get live(): number {
    return this.count - this.removed;
  }

  /** Adds a vector (of this index's dimensions) and returns its slot. */
  add(vector: ArrayLike<number>): number {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    }
    const slot = this.count++;
    if (slot % BLOCK === 0) {
      const size = BLOCK * this.dimensions;
      this.blocks.push(this.fixed16 ? new Int16Array(size) : new Float32Array(size));
    }
    if (slot >= this.dead.length) {
      const dead = new Uint8Array(this.dead.length * 2);
      dead.set(this.dead);
      this.dead = dead;
    }
    const block = this.blocks[this.blocks.length - 1];
    const at = (slot % BLOCK) * this.dimensions;
    if (!this.fixed16) block.set(vector, at);
    else {
      for (let d = 0; d < this.dimensions; d++) {
        block[at + d] = Math.round(Math.max(-1, Math.min(1, vector[d])) * FIXED);
      }
    }
    if (this.perVector > 0) {
      for (const d of strongest(vector, this.perVector)) this.postings[d].push(slot, vector[d]);
    }
    return slot;
  }

  /** An estimate of the heap it holds: its vector blocks, postings and marks. */
  bytes(): number {
    let b = (this.blocks.length + 2) * HEAP.typedArray + this.dead.byteLength + this.acc.byteLength;
    for (const block of this.blocks) b += block.byteLength;
    for (const p of this.postings) b += p.bytes;
    return b;
  }

  remove(slot: number): void {
    if (slot >= 0 && slot < this.count && !this.dead[slot]) {
      this.dead[slot] = 1;
      this.removed++;
    }
  }

  /** Dot product of the query with the vector in `slot`. */
  score(query: ArrayLike<number>, slot: number): number {
    return this.dot(sparse(query), slot);
  }

  /**
   * The dot product over the query's non-zero coordinates, in coordinate order: the same
   * sum as over every coordinate (the others add zeros), in a fraction of the reads for a
   * sparse query.
   */
  private dot(q: SparseQuery, slot: number): number {
    const block = this.blocks[Math.floor(slot / BLOCK)];
    const offset = (slot % BLOCK) * this.dimensions;
    const { dims, values } = q;
    let dot = 0;
    for (let i = 0; i < dims.length; i++) dot += block[offset + dims[i]] * values[i];
    return dot * this.unit;
  }

  /** The `k` nearest live vectors that `accept` lets through, best first. */
  search(query: ArrayLike<number>, k: number, accept?: (slot: number) => boolean): VectorHit[] {
    if (query.length !== this.dimensions || k <= 0) return [];
    if (this.count < this.exactBelow) return this.exact(query, k, accept);
    const touched = this.partialScores(query);
    const wanted = Math.max(this.candidates, 8 * k);
    const threshold = cutoff(this.acc, touched, wanted);
    const top = new TopK(k);
    const q = sparse(query);
    for (const slot of touched) {
      const partial = this.acc[slot];
      this.acc[slot] = 0;
      if (partial < threshold || this.dead[slot] || (accept && !accept(slot))) continue;
      top.offer(slot, this.dot(q, slot));
    }
    return top.sorted();
  }

  /** Every live vector scored: the reference the approximate search is measured against. */
  exact(query: ArrayLike<number>, k: number, accept?: (slot: number) => boolean): VectorHit[] {
    if (query.length !== this.dimensions || k <= 0) return [];
    const top = new TopK(k);
    const q = sparse(query);
    for (let slot = 0; slot < this.count; slot++) {
      if (this.dead[slot] || (accept && !accept(slot))) continue;
      top.offer(slot, this.dot(q, slot));
    }
    return top.sorted();
  }

  /**
   * The `k` best of the given slots by their exact dot product with the query (live ones
   * that `accept` lets through): the exact scoring of candidates found elsewhere.
   */
  rescore(
    query: ArrayLike<number>,
    slots: Iterable<number>,
    k: number,
    accept?: (slot: number) => boolean,
  ): VectorHit[] {
    if (query.length !== this.dimensions || k <= 0) return [];
    const top = new TopK(k);
    const q = sparse(query);
    for (const slot of slots) {
      if (slot < 0 || slot >= this.count || this.dead[slot] || (accept && !accept(slot))) continue;
      top.offer(slot, this.dot(q, slot));
    }
    return top.sorted();
  }

  /** Partial dot products over the query's strongest coordinates, into `acc`; the slots touched. */
  private partialScores(query: ArrayLike<number>): number[] {
    if (this.acc.length < this.count) this.acc = new Float32Array(this.dead.length);
    const acc = this.acc;
    const touched: number[] = [];
    for (const d of strongest(query, this.perQuery)) {
      const q = query[d];
      const { ids, values, length } = this.postings[d];
      for (let i = 0; i < length; i++) {
        const slot = ids[i];
        // A slot's sum starts at 0: first sight (a sum can only be 0 again by cancellation,
        // which at worst lists the slot twice; the exact scoring sees it once).
        if (acc[slot] === 0) touched.push(slot);
        acc[slot] += q * values[i];
      }
    }
    return touched;
  }
}

interface SparseQuery {
  dims: Int32Array;
  values: Float64Array;
}

/** A query's non-zero coordinates, in order, and their values. */
function sparse(query: ArrayLike<number>): SparseQuery {
  let n = 0;
  for (let d = 0; d < query.length; d++) if (query[d] !== 0) n++;
  const dims = new Int32Array(n);
  const values = new Float64Array(n);
  n = 0;
  for (let d = 0; d < query.length; d++) {
    if (query[d] === 0) continue;
    dims[n] = d;
    values[n++] = query[d];
  }
  return { dims, values };
}

/** The k best (slot, score) pairs seen, kept sorted (k is small). */
class TopK {
  private readonly hits: VectorHit[] = [];

  constructor(private readonly k: number) {}

  offer(slot: number, score: number): void {
    const hits = this.hits;
    if (hits.length === this.k && score <= hits[hits.length - 1].score) return;
    let i = hits.length;
    while (i > 0 && hits[i - 1].score < score) i--;
    hits.splice(i, 0, { slot, score });
    if (hits.length > this.k) hits.pop();
  }

  sorted(): VectorHit[] {
    return this.hits;
  }
}
