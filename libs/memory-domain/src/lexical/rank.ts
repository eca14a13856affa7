import { terms } from './analyze';
import type { LexicalFilter, LexicalIndex, ScoreSheet } from './bm25';
import { HOP, hitEntities, type HopEntities } from './hop';
import { namedPeople } from './names';
import { relatedTerms } from './related';
import { asksWhen, timeWindow } from './time-expressions';

/** How the archive's ranking weighs its signals (the defaults were set on bench/memory). */
export const RANKING = {
  /** BM25 candidates read before the other signals reorder them. */
  candidates: 300,
  /** Hits whose score spreads to the turns around them. */
  spreadFrom: 100,
  /** Turns on each side a hit's score spreads to, and their share of it by distance. */
  context: [0.5, 0.25],
  /**
   * Whether a turn with nothing of its own (no query word, no vector similarity) can be
   * found through its neighbours alone. Off: on a small guild it returns chatter next to
   * the one real match.
   */
  contextAlone: false,
  /** Turns further apart than this are another conversation. */
  contextGapMs: 30 * 60_000,
  /** Messages by a person the question names, as a factor. */
  namedAuthor: 1,
  /** Messages inside a time window the question names, as a factor. */
  inWindow: 0.6,
  /** A vector similarity of 1, as a fraction of the best lexical score. */
  vector: 0.5,
  /** Weight of a word related to the question's (`relatedTerms`), against 1 for its own. */
  related: 0.5,
  /**
   * Messages with something to say, as a factor reached at `contentTerms` distinct words:
   * "haha yes exactly" answers nothing, whoever wrote it.
   */
  content: 0.6,
  contentTerms: 6,
  /** Messages that speak of a time, for a question asking when. */
  timedForWhen: 0.3,
  /**
   * Messages in which the person a question names tells a dated event ("I ran my first
   * half marathon yesterday"), as a factor, for a question on what they have done or
   * are like (not when, not in the simple past): what someone has been through is told
   * as such events.
   */
  toldEvent: 1.5,
};

export interface RankOptions {
  now: number;
  limit: number;
  filter?: LexicalFilter;
  /** Vector similarities of messages (by id), when an embedder answered. */
  vectorScores?: ReadonlyMap<string, number>;
}

/** What the ranking understood of a question (for tests and diagnostics). */
export interface QueryReading {
  terms: string[];
  /** Words related to the question's, searched with a lower weight. */
  related: string[];
  asksWhen: boolean;
  /**
   * Asked in the simple past ("what did Ana adopt?"): after one event, which its words
   * find, not after what someone has been through or is like ("what has Ana done?").
   */
  asksPast: boolean;
  named: string[];
  window: { since: number; until: number } | null;
}

export function readQuestion(index: LexicalIndex, question: string, now: number): QueryReading {
  const window = timeWindow(question, now);
  const text = window ? question.replace(new RegExp(escape(window.text), 'i'), ' ') : question;
  const asked = terms(text);
  // A longer word no message holds is likely misspelt: its near spellings stand in for it.
  // A short one is more often a word nobody used ("went", "sold") than a typo, and its
  // near spellings ("want", "cold") are other words.
  const spelled = asked.flatMap((t) =>
    t.length >= 5 && !index.idf(t) ? index.similarTerms(t, t.length >= 8 ? 2 : 1) : [],
  );
  const own = [...asked, ...spelled];
  return {
    terms: own,
    related: relatedTerms(own).filter((t) => index.idf(t) > 0),
    asksWhen: asksWhen(question),
    asksPast: /\b(did|was|were)\b/i.test(question),
    named: namedPeople(question, index.people()),
    window: window && { since: window.since, until: window.until },
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The archive's ranking of a question: BM25 over the messages (with speakers' names)
 * finds candidates; each hit lends part of its score to the turns just before and after
 * it in its channel (an answer is often the reply to the message that shares the
 * question's words); then cheap features rerank: the person the question names wrote it,
 * it falls in the time window the question names, its vector is close to the question's.
 * Every signal is soft: a named person or a date lifts, never filters.
 *
 * @example
 * rankMessages(index, 'When did Tom start painting again?', { now, limit: 10 });
 */
export function rankMessages(
  index: LexicalIndex,
  question: string,
  o: RankOptions,
): { id: string; score: number }[] {
  const r = readQuestion(index, question, o.now);
  const weights = new Map<string, number>();
  if (RANKING.related > 0) for (const t of r.related) weights.set(t, RANKING.related);
  for (const t of r.terms) weights.set(t, (weights.get(t) ?? 0) + 1);
  // The second round's words are the first's and the followed ones: it adds theirs.
  const sheet = index.score(weights);
  try {
    return ranked(index, r, o, sheet);
  } finally {
    index.release(sheet);
  }
}

function ranked(
  index: LexicalIndex,
  r: QueryReading,
  o: RankOptions,
  sheet: ScoreSheet,
): { id: string; score: number }[] {
  let out = scoreRound(index, r, o, sheet);
  // A question that names its person asks about them: nothing to find through a first
  // hit. One that names no one may ask through one ("the person who adopted the dog").
  // Only a first round found by the question's words has hits that say what it asks.
  const worded = r.terms.some((t) => index.idf(t) > 0);
  if (HOP.weight > 0 && worded && !r.named.length && out.length) {
    const sources = [...out]
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, HOP.from)
      .map((h) => h.slot);
    const e = hitEntities(index, sources, r);
    if (e.people.length || e.terms.length || e.dates.length) {
      const followed = new Map(e.terms.map((t) => [t, HOP.term]));
      out = withHop(
        out,
        scoreRound(index, r, o, index.score(followed, sheet), e, new Set(sources)),
      );
    }
  }
  out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return withoutRepeats(index, out, o.limit).map(({ id, score }) => ({ id, score }));
}

/**
 * One round of the ranking over a sheet of BM25 scores, as a fraction of its best lexical
 * score, unsorted. With `hop`, the second round: the question's words and the entities
 * its first hits named (the sheet holds both), whose people and dates lift as the question's own do, except on those first hits
 * (`sources`): their own speaker and dates would lift them again, reordering the first
 * round by what it already found instead of finding what it missed.
 */
function scoreRound(
  index: LexicalIndex,
  r: QueryReading,
  o: RankOptions,
  sheet: ScoreSheet,
  hop?: HopEntities,
  sources?: ReadonlySet<number>,
): Ranked[] {
  const pass = index.filter(o.filter ?? {});
  const hits = index.top(sheet, RANKING.candidates, o.filter);
  const top = hits[0]?.score ?? 1;
  const own = new Map<number, number>();
  for (const h of hits) own.set(h.slot, h.score);
  const context = new Map<number, number>();
  for (const h of hits.slice(0, RANKING.spreadFrom)) {
    const around = index.neighbours(h.slot, RANKING.context.length, RANKING.contextGapMs);
    for (const { slot, distance } of around) {
      if (!pass(slot)) continue;
      const lent = h.score * RANKING.context[distance - 1];
      if (lent > (context.get(slot) ?? 0)) context.set(slot, lent);
    }
  }
  const vectors = new Map<number, number>();
  for (const [id, sim] of o.vectorScores ?? []) {
    const slot = index.slot(id);
    if (slot !== undefined && pass(slot)) vectors.set(slot, sim);
  }
  const named = new Set(r.named);
  const followed = new Set(hop?.people ?? []);
  const candidates = new Set([
    ...own.keys(),
    ...(RANKING.contextAlone ? context.keys() : []),
    ...vectors.keys(),
  ]);
  // A dated event the person asked about tells, for a question on what they have done or
  // are like: not when, nor what one event was (the simple past). With a time window, only an event in it, unless nothing at all falls in it
  // ("this year" of a conversation years old): a window that holds nothing tells nothing.
  const windowHolds =
    !!r.window && [...candidates].some((slot) => inWindow(index.doc(slot), r.window!) > 0);
  const events = r.named.length > 0 && !r.asksWhen && !r.asksPast;
  const out: Ranked[] = [];
  for (const slot of candidates) {
    const d = index.doc(slot);
    let s = (own.get(slot) ?? 0) + (context.get(slot) ?? 0);
    s += RANKING.vector * top * (vectors.get(slot) ?? 0);
    const source = sources?.has(slot) ?? false;
    if (named.has(d.authorId) || (!source && followed.has(d.authorId))) {
      s *= 1 + RANKING.namedAuthor;
    }
    if (r.window) s *= 1 + RANKING.inWindow * inWindow(d, r.window);
    if (!source) for (const w of hop?.dates ?? []) s *= 1 + RANKING.inWindow * inWindow(d, w);
    s *= 1 + RANKING.content * Math.min(1, d.terms / RANKING.contentTerms);
    if (r.asksWhen && d.timed) s *= 1 + RANKING.timedForWhen;
    if (events && d.narrated && named.has(d.authorId)) {
      if (!windowHolds || inWindow(d, r.window!) > 0) s *= 1 + RANKING.toldEvent;
    }
    if (s > 0) out.push({ id: d.id, score: s / top, slot });
  }
  return out;
}

/** The first round's scores with the second's added at `HOP.weight`. */
function withHop(first: Ranked[], second: Ranked[]): Ranked[] {
  const merged = new Map(first.map((h) => [h.slot, { ...h }]));
  for (const h of second) {
    const m = merged.get(h.slot);
    if (m) m.score += HOP.weight * h.score;
    else merged.set(h.slot, { ...h, score: HOP.weight * h.score });
  }
  return [...merged.values()];
}

interface Ranked {
  id: string;
  score: number;
  slot: number;
}

/**
 * The ranking with a person's repeated words (the same small talk again and again) after
 * their first occurrence: a second copy tells nothing the first did not, and takes a
 * place an answer could have.
 */
function withoutRepeats(index: LexicalIndex, ranked: Ranked[], limit: number): Ranked[] {
  const seen = new Set<string>();
  const first: Ranked[] = [];
  const repeats: Ranked[] = [];
  for (const h of ranked) {
    // Once `limit` first occurrences are in, the rest (repeats included) come after them.
    if (first.length >= limit) break;
    const sig = index.signature(h.slot);
    if (seen.has(sig)) repeats.push(h);
    else {
      seen.add(sig);
      first.push(h);
    }
  }
  return [...first, ...repeats].slice(0, limit);
}

/**
 * How much a message falls in a question's time window: 1 when it was sent there; 1.5
 * when what it tells happened there about as precisely as the question asks ("yesterday"
 * for a date: on the point more than the small talk around it); 0.5 when what it tells
 * only overlaps it ("last week" for a date); else 0.
 */
function inWindow(
  d: { at: number; told: { since: number; until: number } | null },
  w: { since: number; until: number },
): number {
  const sent = d.at >= w.since && d.at < w.until ? 1 : 0;
  const t = d.told;
  if (!t || t.until <= w.since || t.since >= w.until) return sent;
  return t.until - t.since <= 2 * Math.max(w.until - w.since, 86_400_000) ? 1.5 : 0.5 + sent;
}
