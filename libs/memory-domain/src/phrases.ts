import { contentWords } from './embedder';

/** One use of a phrase: the message (its provenance) and who said it. */
export interface PhraseOccurrence {
  messageId: string;
  authorId: string;
}

/** A phrase of the guild with the messages it was seen in. */
export interface PhraseUses {
  phrase: string;
  occurrences: PhraseOccurrence[];
}

/** A repeated phrase the room confirmed: said by at least `minPeople` different people. */
export interface LorePhrase {
  phrase: string;
  /** The shingles it was stitched from (the rows that make it). */
  shingles: string[];
  messageIds: string[];
  authorIds: string[];
}

export const PHRASE_WORDS = 3;
/** Distinct people who must have said a phrase before it is lore. */
export const LORE_MIN_PEOPLE = 3;
/** Uses kept per phrase (each person's first use before repeats). */
export const MAX_OCCURRENCES = 16;
const MAX_SHINGLES = 40;

/** A message's words for phrase matching: quotes, links and mentions left out, apostrophes dropped. */
export function phraseWords(content: string): string[] {
  return content
    .split('\n')
    .filter((line) => !/^>/.test(line))
    .join(' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/<[@#:][^>]*>/g, ' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * The phrase candidates of a message: its windows of three words holding at least two
 * content words ("always blame the intern" → "always blame the", "blame the intern"), so
 * that "and then the" is never a phrase. At most 40, each once.
 *
 * @example
 * phraseShingles("It's always DNS, again") // ['its always dns', 'always dns again']
 */
export function phraseShingles(content: string, n = PHRASE_WORDS): string[] {
  const words = phraseWords(content);
  const out = new Set<string>();
  for (let i = 0; i + n <= words.length && out.size < MAX_SHINGLES; i++) {
    const shingle = words.slice(i, i + n).join(' ');
    if (shingle.length <= 200 && contentWords(shingle).length >= 2) out.add(shingle);
  }
  return [...out];
}

/**
 * Adds uses to a phrase's occurrences, once per message, keeping the first use of every
 * person before further uses (so that distinct people are never pushed out by one who
 * repeats themselves), at most 16.
 */
export function mergeOccurrences(
  existing: readonly PhraseOccurrence[],
  added: readonly PhraseOccurrence[],
): PhraseOccurrence[] {
  const all = [...existing, ...added].filter(
    (o, i, a) => a.findIndex((x) => x.messageId === o.messageId) === i,
  );
  const firsts = all.filter((o, i) => all.findIndex((x) => x.authorId === o.authorId) === i);
  const rest = all.filter((o) => !firsts.includes(o));
  return [...firsts, ...rest].slice(0, MAX_OCCURRENCES);
}

export const distinctPeople = (occ: readonly PhraseOccurrence[]) =>
  new Set(occ.map((o) => o.authorId)).size;

/**
 * Coalesces the guild's repeated shingles into lore phrases: those said by at least
 * `minPeople` people, stitched where they overlap and were said in the same messages
 * ("ship it on" + "it on friday" → "ship it on friday").
 *
 * @example
 * coalescePhrases([{ phrase: 'ship it on', occurrences }, { phrase: 'it on friday', occurrences }])
 * // [{ phrase: 'ship it on friday', ... }] when `occurrences` name three people
 */
export function coalescePhrases(
  rows: readonly PhraseUses[],
  minPeople = LORE_MIN_PEOPLE,
): LorePhrase[] {
  const groups = new Map<string, PhraseUses[]>();
  for (const r of rows) {
    if (distinctPeople(r.occurrences) < minPeople) continue;
    const key = r.occurrences
      .map((o) => o.messageId)
      .sort()
      .join(',');
    const group = groups.get(key);
    // Pushed, not copied: a busy guild has thousands of confirmed phrases, and copying each
    // group as it grew held a moment batch's event loop for hundreds of milliseconds.
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const out: LorePhrase[] = [];
  for (const group of groups.values()) {
    const occ = group[0].occurrences;
    for (const chain of stitch(group.map((g) => g.phrase))) {
      out.push({
        phrase: chain.phrase,
        shingles: chain.parts,
        messageIds: occ.map((o) => o.messageId),
        authorIds: [...new Set(occ.map((o) => o.authorId))],
      });
    }
  }
  return out.sort((a, b) => a.phrase.localeCompare(b.phrase));
}

/** Joins shingles that overlap by all but one word into the longest chains. */
function stitch(shingles: string[]): { phrase: string; parts: string[] }[] {
  const words = (s: string) => s.split(' ');
  const head = (s: string) => words(s).slice(0, -1).join(' ');
  const tail = (s: string) => words(s).slice(1).join(' ');
  const byHead = new Map(shingles.map((s) => [head(s), s]));
  const tails = new Set(shingles.map(tail));
  const used = new Set<string>();
  const out: { phrase: string; parts: string[] }[] = [];
  const starts = [...shingles.filter((s) => !tails.has(head(s))).sort(), ...[...shingles].sort()];
  for (const start of starts) {
    if (used.has(start)) continue;
    const parts = [start];
    used.add(start);
    let cur = start;
    for (let next = byHead.get(tail(cur)); next && !used.has(next); next = byHead.get(tail(cur))) {
      parts.push(next);
      used.add(next);
      cur = next;
    }
    const phrase = [parts[0], ...parts.slice(1).map((p) => words(p).at(-1))].join(' ');
    out.push({ phrase, parts });
  }
  return out;
}

/** The lore text of a phrase the room repeats (paraphrase of a pattern, quoting the phrase). */
export function phraseLoreText(p: Pick<LorePhrase, 'phrase' | 'authorIds'>): string {
  return `Recurring phrase in the group: "${p.phrase}" (said by ${p.authorIds.length} people)`;
}
