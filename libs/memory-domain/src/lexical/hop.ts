import { terms } from './analyze';
import type { LexicalIndex } from './bm25';

/**
 * The second round of a search: what the first hits name, followed once. A question
 * often asks through something it does not name ("what city does the person who adopted
 * the dog live in?"): the first round finds the turn about the dog; its speaker, the
 * people and places it names, and the date it tells are what the answer shares with it.
 * Bounded: the first `from` hits, at most `entities` words, one more query.
 */
export const HOP = {
  /** First hits whose entities are followed. */
  from: 3,
  /** Words (names, places, pets) followed at most, the rarest first. */
  entities: 4,
  /** Weight of a followed word in the second query, against 1 for the question's own. */
  term: 1,
  /** The second round's best score, as a fraction of the first's. */
  weight: 0.5,
};

/** What the first hits name that the question did not. */
export interface HopEntities {
  /** Authors to follow: the people the hits' text names, and their speakers when the
   * question names no one. */
  people: string[];
  /** Analysed words of proper names the hits say (places, pets, people not in the guild). */
  terms: string[];
  /** Dated events the hits tell, as windows (since / until, epoch milliseconds). */
  dates: { since: number; until: number }[];
}

/**
 * The entities of a search's first hits: their speakers and the guild members their text
 * names (people the question did not name), the rarest proper-name words they say (not
 * the question's own), and the dated events they tell.
 *
 * @example
 * hitEntities(index, [slot], { terms: ['citi', 'live', 'adopt', 'dog'], named: [] });
 */
export function hitEntities(
  index: LexicalIndex,
  slots: readonly number[],
  question: { terms: readonly string[]; named: readonly string[] },
): HopEntities {
  const asked = new Set(question.terms);
  const people = new Set<string>();
  const words = new Set<string>();
  const dates: HopEntities['dates'] = [];
  // A member is named by their first name's term (as `namedPeople` reads a question).
  const members = index.people().flatMap((p) => {
    const first = terms(p.name)[0];
    return first ? [{ authorId: p.authorId, first }] : [];
  });
  const memberTerms = new Set(members.map((m) => m.first));
  for (const slot of slots.slice(0, HOP.from)) {
    const d = index.doc(slot);
    const said = members
      .filter((m) => m.authorId !== d.authorId && index.says(slot, m.first))
      .map((m) => m.authorId);
    // A question that names its people needs no other: the speakers of its hits are
    // followed only when it names none ("the person who adopted the dog").
    const found = question.named.length ? said : [d.authorId, ...said];
    for (const p of found) if (!question.named.includes(p)) people.add(p);
    for (const t of index.properTerms(slot)) {
      if (!asked.has(t) && !memberTerms.has(t) && index.idf(t) > 0) words.add(t);
    }
    if (d.told) dates.push(d.told);
  }
  const rarest = [...words].sort((a, b) => index.idf(b) - index.idf(a) || (a < b ? -1 : 1));
  // A person is followed by their name too: the index holds it with each of their
  // messages, so the second query meets what they said that shares no word with the
  // question ("Porto has been home for years").
  const names = members.filter((m) => people.has(m.authorId)).map((m) => m.first);
  return {
    people: [...people],
    terms: [...new Set([...names, ...rarest.slice(0, HOP.entities)])],
    dates,
  };
}
