import {
  FeatureIndex,
  LexicalIndex,
  VectorIndex,
  type LexicalDoc,
  type LexicalFilter,
} from '@dirigent/memory-domain';
import type { Embedder } from '../application/ports';
import { TimeSlice } from '../application/time-slice';
import { lexicalDoc, type Row } from './postgres/sql';

/**
 * Below this many messages every vector is scored (about the cost of rescoring the
 * candidates and reading their lists); above, candidates come by feature.
 */
const EXACT_BELOW = 8_192;
/**
 * Candidates by feature scored exactly, per hit asked for (and at least): the features'
 * sums leave out the 3- and 4-grams and the coordinates texts share by chance, which
 * reorder the closest few hundred (`feature-index.unit.spec.ts`). On the 100,000-message
 * bench guild, 800 candidates for a search's 50 hold as much of the exact top 10 as 1,200
 * (2,000: 3% more, for twice the scoring).
 */
const RESCORED_PER_HIT = 16;
const RESCORED_MIN = 400;

type Derived = NonNullable<Embedder['derived']>;

/**
 * One guild's archive in this process: its messages' words ({@link LexicalIndex}) and, when
 * the embedder's vectors are derived from the text, their vectors and the features they are
 * filed under (slot for slot with the words: each message is taken once, in the same order).
 * What `ArchiveIndex` loads, follows and evicts; the state of a load under way lives here
 * too, so that writes and deletions that arrive meanwhile are applied once it is done.
 */
export class GuildIndex {
  readonly index = new LexicalIndex();
  readonly vectors: VectorIndex | null;
  readonly features: FeatureIndex | null;
  /**
   * The texts of the slots indexed by their words whose vectors are not placed yet: the
   * text of slot `vectors.size + i` is `unplaced[unplacedFrom + i]`. Empty once the
   * vectors have caught up; from then on each message's vector is placed with its words.
   */
  private unplaced: string[] = [];
  private unplacedFrom = 0;
  /** Every indexed message's vector is placed (`nearest` answers). */
  vectorsReady = false;
  vectorsPlaced: Promise<void> = Promise.resolve();
  ready = false;
  /** The load has read its last page: only indexing what it read is left. */
  finishing = false;
  loaded: Promise<void> = Promise.resolve();
  /** Written or deleted while the load was reading: applied once it is done (`loadDone`). */
  private added: LexicalDoc[] = [];
  readonly removed = new Set<string>();
  /** Batches being added in slices, and what was deleted meanwhile (kept out of them). */
  private adding = 0;
  private readonly gone = new Set<string>();
  /**
   * The ids of those batches' rows not indexed yet: a catch-up leaves them to the batch
   * (it read them back and indexed them at once, in one turn of the event loop).
   */
  private readonly incoming = new Set<string>();
  lastSeq = 0;
  caughtUpAt = Date.now();
  catchingUp?: Promise<void>;
  /** When it was last searched (a counter: the least recently used is evicted first). */
  usedAt = 0;
  /** The heap it holds, as last measured, and its message count then. */
  bytes = 0;
  measuredAt = 0;
  /** Dropped (over the budget, or its partition went to another replica): its load stops. */
  evicted = false;

  constructor(private readonly derived: Derived | undefined) {
    this.vectors = derived
      ? new VectorIndex(derived.vector('').length, { perVector: 0, fixed16: true })
      : null;
    this.features = derived ? new FeatureIndex() : null;
  }

  /** Held already, or on its way in with a batch being added. */
  knows(messageId: string): boolean {
    return this.index.has(messageId) || this.incoming.has(messageId);
  }

  /** A row committed while the load was reading, for after it. */
  addAfterLoad(rows: Row[]): void {
    this.added.push(...rows.map(lexicalDoc));
  }

  /**
   * Rows into the index a few milliseconds at a time (a batch of 1,024 held the event loop
   * for about 50 ms, and searches with it). `claim`: the rows are this process's own batch,
   * which a catch-up running meanwhile leaves alone; otherwise rows a batch claimed are.
   */
  async addInSlices(rows: Row[], claim: boolean): Promise<void> {
    this.adding++;
    if (claim) for (const r of rows) this.incoming.add(r.message_id);
    try {
      const slice = new TimeSlice();
      for (const r of rows) {
        if (slice.spent) await slice.next();
        if (this.evicted) return;
        const id = r.message_id as string;
        if (claim) this.incoming.delete(id);
        else if (this.incoming.has(id)) continue;
        if (!this.gone.has(id)) this.put(lexicalDoc(r));
      }
    } finally {
      if (--this.adding === 0) {
        this.gone.clear();
        this.incoming.clear();
      }
    }
  }

  /** Messages deleted (or forgotten): gone at once, and kept out of what is under way. */
  remove(messageIds: readonly string[]): void {
    for (const id of messageIds) {
      this.unindex(id);
      if (!this.ready) this.removed.add(id);
      if (this.adding) this.gone.add(id);
    }
  }

  /**
   * A message into the guild's words, once, and its vector with them, or after the vectors
   * of the slots before it (`fillVectors`) while a large guild's load is placing them.
   */
  put(d: LexicalDoc): void {
    if (this.index.has(d.id)) return;
    this.index.add(d);
    if (!this.vectors) return;
    if (this.vectorsReady) this.place(d.text);
    else this.unplaced.push(d.text);
  }

  /** The load is over: what came and went meanwhile is applied, and it serves searches. */
  loadDone(): void {
    for (const d of this.added) if (!this.removed.has(d.id)) this.put(d);
    for (const id of this.removed) this.unindex(id);
    this.added = [];
    this.removed.clear();
    this.ready = true;
    this.caughtUpAt = Date.now();
    this.measure();
  }

  /**
   * Places the vectors of the slots indexed by their words only, a few milliseconds at a
   * time, then those of the messages indexed meanwhile; from then on with their words.
   */
  async fillVectors(): Promise<void> {
    const slice = new TimeSlice();
    while (this.unplacedFrom < this.unplaced.length) {
      if (slice.spent) await slice.next();
      if (this.evicted) return;
      const text = this.unplaced[this.unplacedFrom];
      this.unplaced[this.unplacedFrom++] = '';
      this.place(text);
    }
    this.unplaced = [];
    this.unplacedFrom = 0;
    this.vectorsReady = true;
  }

  measure(): void {
    this.bytes = this.index.bytes() + (this.vectors?.bytes() ?? 0) + (this.features?.bytes() ?? 0);
    this.measuredAt = this.index.size;
  }

  /**
   * The messages nearest a query of the derived model, among those the filter lets
   * through; null when it holds no vectors of that model (another embedder, or its vectors
   * still loading). A small guild's vectors are all scored; a larger one's candidates are
   * those sharing the query's rarer features (`FeatureIndex`), scored exactly: the cost
   * follows the query's words, not the guild.
   */
  nearest(
    model: string,
    query: string,
    k: number,
    filter: LexicalFilter = {},
  ): { id: string; score: number }[] | null {
    const { vectors, features, derived } = this;
    if (!this.ready || !this.vectorsReady || !vectors || !features) return null;
    if (model !== derived?.model) return null;
    const pass = this.index.filter(filter);
    const q = derived.features(query);
    if (vectors.size < EXACT_BELOW) return this.found(vectors.exact(q.vector, k, pass));
    // A filter that keeps few messages (a channel, a person): those few, every one scored.
    const { channelId, excludeChannelId, authorId, since, until } = filter;
    const filtered = [channelId, excludeChannelId, authorId, since, until].some(
      (v) => v !== undefined,
    );
    const few = filtered ? kept(vectors.size, pass) : null;
    const hits = few
      ? vectors.rescore(q.vector, few, k)
      : vectors.rescore(
          q.vector,
          features.candidates(
            q.keys,
            q.weights,
            Math.max(RESCORED_MIN, RESCORED_PER_HIT * k),
            pass,
          ),
          k,
        );
    return this.found(hits);
  }

  /** The vector of the next slot without one (a slot dropped meanwhile is dropped again). */
  private place(text: string): void {
    const f = this.derived!.features(text);
    const slot = this.vectors!.add(f.vector);
    const id = this.index.doc(slot).id;
    const slotOfId = this.index.slot(id);
    if (slotOfId === undefined) this.vectors!.remove(slot);
    else if (slotOfId !== slot) throw new Error('archive words and vectors out of step');
    this.features!.add(slot, f.keys, f.weights);
  }

  private unindex(id: string): void {
    const slot = this.index.slot(id);
    if (this.index.remove(id) && slot !== undefined) this.vectors?.remove(slot);
  }

  private found(hits: { slot: number; score: number }[]) {
    return hits.map((h) => ({ id: this.index.doc(h.slot).id, score: h.score }));
  }
}

/** The slots a filter keeps, when they are fewer than `EXACT_BELOW`; null otherwise. */
function kept(slots: number, pass: (slot: number) => boolean): number[] | null {
  const out: number[] = [];
  for (let slot = 0; slot < slots; slot++) {
    if (pass(slot) && out.push(slot) >= EXACT_BELOW) return null;
  }
  return out;
}
