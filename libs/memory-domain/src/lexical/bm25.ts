import { HEAP, stringBytes } from '../heap-bytes';
import { Postings } from '../postings';
import { terms } from './analyze';
import { withinEdits } from './edits';
import { properNames } from './names';
import { ScoreSheets, type ScoreSheet } from './score-sheets';
import { mentionsTime, toldWindow } from './time-expressions';
import { ChannelTimelines } from './timelines';
import { TopK, type LexicalHit } from './top-k';

export type { ScoreSheet } from './score-sheets';

/** One message as the lexical index keeps it. */
export interface LexicalDoc {
  id: string;
  text: string;
  /** Epoch milliseconds. */
  at: number;
  channelId: string;
  authorId: string;
  /** Indexed with the text, so a question naming the speaker meets their messages. */
  authorName?: string;
}

export interface LexicalFilter {
  channelId?: string;
  excludeChannelId?: string;
  /** Channels the reader's audience may not see: their messages never pass. */
  hiddenChannelIds?: ReadonlySet<string>;
  authorId?: string;
  since?: number;
  until?: number;
}

const DAY = 86_400_000;

/** Okapi BM25 parameters (Robertson & Zaragoza 2009); b lower than 0.75: chat lines are short. */
export const BM25 = { k1: 1.2, b: 0.5 };

/** A term's postings: (slot, term frequency) in typed arrays, read at a search's speed. */
interface TermPostings {
  list: Postings;
  /** Postings of deleted documents still in the list (swept when they dominate). */
  dead: number;
}

/**
 * An in-process inverted index with Okapi BM25 scoring (OR semantics: any query term
 * counts, weighed by its IDF) over one guild's messages, each indexed with its speaker's
 * name. Documents are kept in time order per channel, so a hit's neighbouring turns are
 * found without a query. Adding and removing are O(terms of the message); a search reads
 * the postings of the query's terms only.
 *
 * @example
 * const index = new LexicalIndex();
 * index.add({ id: '1', text: 'I started painting again', at, channelId: 'c', authorId: 'u', authorName: 'Tom' });
 * index.search(terms('When did Tom take up painting?'), 10); // [{ slot: 0, score: … }]
 */
export class LexicalIndex {
  private readonly termIds = new Map<string, number>();
  /** Terms by id. */
  private readonly termList: string[] = [];
  private readonly postings: TermPostings[] = [];
  private readonly df: number[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly ats: number[] = [];
  private readonly lens: number[] = [];
  /** 1 for a slot whose message is indexed, 0 once removed (read in a search's loop). */
  private alive = new Uint8Array(1024);
  private readonly chans: number[] = [];
  private readonly authors: number[] = [];
  private readonly docTerms: (Uint32Array | null)[] = [];
  /** The terms of the proper names a message says ("Biscuit", "Lisbon"); null for none. */
  private readonly docNames: (Uint32Array | null)[] = [];
  /** Whether a message speaks of a time ("yesterday", "last week", "in May", a date). */
  private readonly timed: boolean[] = [];
  /**
   * When what it tells happened, where it says so in a way that resolves to dates
   * ("yesterday" read against its own time): since / until, NaN when it does not.
   */
  private readonly toldSince: number[] = [];
  private readonly toldUntil: number[] = [];
  /**
   * Whether a message tells an event of an earlier day as a statement ("we adopted a
   * dog yesterday"; not "tired today", not "did you watch it last night?").
   */
  private readonly narrated: boolean[] = [];
  private readonly channelIds: string[] = [];
  private readonly channelNo = new Map<string, number>();
  private readonly authorIds: string[] = [];
  private readonly authorNo = new Map<string, number>();
  /** Display names by author number (the latest seen). */
  private readonly names: (string | undefined)[] = [];
  /** Per channel: slots in the order their messages were written. */
  private readonly timelines = new ChannelTimelines(this.ats, this.ids);
  private live = 0;
  private totalLen = 0;
  private readonly sheets = new ScoreSheets();

  get size(): number {
    return this.live;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Adds a message once (a second add of the same id is ignored). */
  add(d: LexicalDoc): void {
    if (this.slotOf.has(d.id)) return;
    const slot = this.ids.length;
    const ch = intern(d.channelId, this.channelIds, this.channelNo);
    const au = intern(d.authorId, this.authorIds, this.authorNo);
    if (d.authorName) this.names[au] = d.authorName;
    const ts = terms(d.authorName ? `${d.authorName} ${d.text}` : d.text);
    const tf = new Map<number, number>();
    for (const t of ts) {
      const id = intern(t, this.termList, this.termIds);
      if (id === this.postings.length) {
        this.postings.push({ list: new Postings(4), dead: 0 });
        this.df.push(0);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const [t, n] of tf) {
      this.postings[t].list.push(slot, n);
      this.df[t]++;
    }
    this.slotOf.set(d.id, slot);
    this.ids.push(d.id);
    this.ats.push(d.at);
    this.lens.push(ts.length);
    this.chans.push(ch);
    this.authors.push(au);
    this.docTerms.push(Uint32Array.from(tf.keys()));
    const named = properNames(d.text).flatMap((n) => terms(n));
    const nameIds = named.flatMap((t) => this.termIds.get(t) ?? []);
    this.docNames.push(nameIds.length ? Uint32Array.from(new Set(nameIds)) : null);
    if (slot >= this.alive.length) {
      const alive = new Uint8Array(this.alive.length * 2);
      alive.set(this.alive);
      this.alive = alive;
    }
    this.alive[slot] = 1;
    const told = toldWindow(d.text, d.at);
    this.timed.push(told !== null || mentionsTime(d.text));
    this.toldSince.push(told?.since ?? NaN);
    this.toldUntil.push(told?.until ?? NaN);
    const dayStart = d.at - (((d.at % DAY) + DAY) % DAY);
    this.narrated.push(told !== null && told.until <= dayStart && !d.text.includes('?'));
    this.live++;
    this.totalLen += ts.length;
    this.timelines.place(ch, slot);
  }

  /** Drops a message; true when it was indexed. */
  remove(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    for (const t of this.docTerms[slot]!) {
      this.df[t]--;
      const p = this.postings[t];
      if (++p.dead > 32 && p.dead * 2 > p.list.length) this.sweep(p);
    }
    this.docTerms[slot] = null;
    this.docNames[slot] = null;
    this.alive[slot] = 0;
    this.live--;
    this.totalLen -= this.lens[slot];
    this.timelines.remove(this.chans[slot], slot);
    return true;
  }

  /** The message ids of an author (for a forget). */
  idsByAuthor(authorId: string): string[] {
    const au = this.authorNo.get(authorId);
    if (au === undefined) return [];
    const out: string[] = [];
    for (let s = 0; s < this.ids.length; s++) {
      if (this.docTerms[s] && this.authors[s] === au) out.push(this.ids[s]);
    }
    return out;
  }

  doc(slot: number) {
    return {
      id: this.ids[slot],
      at: this.ats[slot],
      channelId: this.channelIds[this.chans[slot]],
      authorId: this.authorIds[this.authors[slot]],
      /** Distinct index terms (0 for small talk made only of stop words). */
      terms: this.docTerms[slot]?.length ?? 0,
      timed: this.timed[slot],
      /** When what it tells happened, resolved from its time expression; null when unsaid. */
      told: Number.isNaN(this.toldSince[slot])
        ? null
        : { since: this.toldSince[slot], until: this.toldUntil[slot] },
      /** It tells an event of an earlier day, as a statement. */
      narrated: this.narrated[slot],
    };
  }

  /**
   * The message's terms (its speaker's name among them) as one string: equal for the same
   * person saying the same words again ("anyway, what else is new with you?").
   */
  signature(slot: number): string {
    return this.docTerms[slot]?.join(',') ?? '';
  }

  /** Whether a message holds an analysed term (its speaker's name counts). */
  says(slot: number, term: string): boolean {
    const t = this.termIds.get(term);
    return t !== undefined && !!this.docTerms[slot]?.includes(t);
  }

  /** The analysed terms of the proper names a message says. */
  properTerms(slot: number): string[] {
    return Array.from(this.docNames[slot] ?? [], (t) => this.termList[t]);
  }

  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /** The people who wrote here, with their latest display names. */
  people(): { authorId: string; name: string }[] {
    const out: { authorId: string; name: string }[] = [];
    this.names.forEach((name, au) => name && out.push({ authorId: this.authorIds[au], name }));
    return out;
  }

  /** IDF of an analysed term (BM25's, never negative); 0 for an unknown term. */
  idf(term: string): number {
    const t = this.termIds.get(term);
    if (t === undefined || !this.df[t]) return 0;
    const n = this.df[t];
    return Math.log(1 + (this.live - n + 0.5) / (n + 0.5));
  }

  /**
   * Known terms within `maxDistance` edits (Levenshtein) of an unknown one, for typos:
   * "kubernetis" meets "kubernetes". Only terms still in some message count.
   */
  similarTerms(term: string, maxDistance: number): string[] {
    const out: string[] = [];
    for (const [known, t] of this.termIds) {
      if (!this.df[t] || Math.abs(known.length - term.length) > maxDistance) continue;
      if (known[0] !== term[0] && known[1] !== term[1]) continue;
      if (withinEdits(term, known, maxDistance)) out.push(known);
    }
    return out;
  }

  /**
   * The best `limit` messages for the analysed query terms by BM25 (any term counts),
   * among those the filter lets through.
   */
  search(
    queryTerms: readonly string[] | ReadonlyMap<string, number>,
    limit: number,
    f: LexicalFilter = {},
  ): LexicalHit[] {
    const sheet = this.score(queryTerms);
    try {
      return this.top(sheet, limit, f);
    } finally {
      this.release(sheet);
    }
  }

  /**
   * The BM25 scores of the query terms, added to `into` when given: a query's score is
   * the sum of its terms' (each weighed by its count), so a second round that adds words
   * to the first reads only the postings of the words it adds. Read with `top`, freed
   * with `release`, all in one turn (adding or removing messages in between changes the
   * weights the sheet was scored with).
   */
  score(
    queryTerms: readonly string[] | ReadonlyMap<string, number>,
    into?: ScoreSheet,
  ): ScoreSheet {
    const sheet = into ?? this.sheet();
    if (!this.live) return sheet;
    const { scores, touched } = sheet;
    let count = sheet.count;
    const { alive, lens } = this;
    const avg = this.totalLen / this.live || 1;
    const { k1, b } = BM25;
    // tf·(k1+1) / (tf + k1·(1 − b + b·len/avg)), with the length's part folded into two
    // constants of the search.
    const base = k1 * (1 - b);
    const perLen = (k1 * b) / avg;
    for (const [term, qtf] of queryWeights(queryTerms)) {
      const t = this.termIds.get(term);
      if (t === undefined || !this.df[t] || qtf <= 0) continue;
      const lift = this.idf(term) * qtf * (k1 + 1);
      const { ids, values, length } = this.postings[t].list;
      for (let i = 0; i < length; i++) {
        const s = ids[i];
        if (!alive[s]) continue;
        const tf = values[i];
        if (scores[s] === 0) touched[count++] = s;
        scores[s] += (lift * tf) / (tf + base + perLen * lens[s]);
      }
    }
    sheet.count = count;
    return sheet;
  }

  /** The best `limit` scored messages of a sheet among those the filter lets through. */
  top(sheet: ScoreSheet, limit: number, f: LexicalFilter = {}): LexicalHit[] {
    const pass = this.filter(f);
    const best = new TopK(limit);
    const { scores, touched, count } = sheet;
    // The filter is asked only of a score that would be kept: most are not, once k are in.
    let floor = -Infinity;
    for (let i = 0; i < count; i++) {
      const s = touched[i];
      const score = scores[s];
      if (score > floor && pass(s)) {
        best.offer(s, score);
        floor = best.floor;
      }
    }
    return best.sorted();
  }

  /** Clears a sheet's scores (the index's own buffer is lent to the next). */
  release(sheet: ScoreSheet): void {
    this.sheets.release(sheet);
  }

  /** A clear sheet: the index's own buffer, or a new one while that is lent out. */
  private sheet(): ScoreSheet {
    return this.sheets.take(this.ids.length);
  }

  /** A predicate over slots for a filter (an indexed message passes an empty filter). */
  filter(f: LexicalFilter): (slot: number) => boolean {
    const ch = f.channelId === undefined ? -1 : (this.channelNo.get(f.channelId) ?? -2);
    const ex =
      f.excludeChannelId === undefined ? -1 : (this.channelNo.get(f.excludeChannelId) ?? -1);
    const au = f.authorId === undefined ? -1 : (this.authorNo.get(f.authorId) ?? -2);
    const since = f.since ?? -Infinity;
    const until = f.until ?? Infinity;
    // Hidden channels as a mask over channel numbers: one array read per posting.
    let hidden: Uint8Array | null = null;
    for (const id of f.hiddenChannelIds ?? []) {
      const no = this.channelNo.get(id);
      if (no === undefined) continue;
      hidden ??= new Uint8Array(this.channelIds.length);
      hidden[no] = 1;
    }
    if (
      ch === -1 &&
      ex === -1 &&
      au === -1 &&
      since === -Infinity &&
      until === Infinity &&
      !hidden
    ) {
      return (s) => this.alive[s] === 1;
    }
    return (s) =>
      this.alive[s] === 1 &&
      (hidden === null || hidden[this.chans[s]] !== 1) &&
      (ch === -1 || this.chans[s] === ch) &&
      (ex === -1 || this.chans[s] !== ex) &&
      (au === -1 || this.authors[s] === au) &&
      this.ats[s] >= since &&
      this.ats[s] <= until;
  }

  /**
   * The turns around a message in its channel: up to `radius` on each side, nearest
   * first, none more than `maxGapMs` from the message (another conversation).
   */
  neighbours(slot: number, radius: number, maxGapMs: number): { slot: number; distance: number }[] {
    if (!this.docTerms[slot]) return [];
    return this.timelines.around(this.chans[slot], slot, radius, maxGapMs);
  }

  /**
   * An estimate of the heap this index holds, from V8's object sizes (`HEAP`): its terms
   * and their postings, its ids and per-message columns. Linear in its terms and messages.
   */
  bytes(): number {
    let b = 3 * HEAP.typedArray + this.alive.byteLength + this.sheets.bytes();
    for (const t of this.termIds.keys()) b += stringBytes(t) + HEAP.mapEntry + HEAP.slot;
    for (const p of this.postings) b += HEAP.object + p.list.bytes;
    for (const id of this.ids) b += stringBytes(id);
    b += this.slotOf.size * HEAP.mapEntry;
    // ids, ats, lens, chans, authors, docTerms, timed, toldSince, toldUntil: one slot each.
    b += this.ids.length * 9 * HEAP.slot;
    for (const d of this.docTerms) if (d) b += HEAP.typedArray + d.byteLength;
    return b + this.timelines.bytes();
  }

  private sweep(p: TermPostings): void {
    const { ids, values, length } = p.list;
    let w = 0;
    for (let i = 0; i < length; i++) {
      if (!this.alive[ids[i]]) continue;
      ids[w] = ids[i];
      values[w++] = values[i];
    }
    p.list.length = w;
    p.dead = 0;
  }
}

/** Query terms with their weights: a list counts each repetition once more. */
function queryWeights(q: readonly string[] | ReadonlyMap<string, number>): Map<string, number> {
  if (!Array.isArray(q)) return new Map(q as ReadonlyMap<string, number>);
  const weights = new Map<string, number>();
  for (const t of q as readonly string[]) weights.set(t, (weights.get(t) ?? 0) + 1);
  return weights;
}

function intern(key: string, list: string[] | null, map: Map<string, number>): number {
  let n = map.get(key);
  if (n === undefined) {
    n = map.size;
    map.set(key, n);
    list?.push(key);
  }
  return n;
}
