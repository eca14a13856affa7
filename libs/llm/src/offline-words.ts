/**
 * The words the offline model matches a message and a memory line by: content words (no
 * stop words, nothing under three letters), compared by their Porter stems (memory's own
 * stemmer) so that "bring" finds "bringing" and "starts" finds "start".
 */
import { porterStem } from '@dirigent/memory-domain';

const STOP = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have hey hi how i if in ' +
    'into is it its just me my no not of on or our so that the their them then there these they this ' +
    'to too up us was we were what when where which who why will with would you your yours about all ' +
    'any also some than very really like get got okay ok yes yeah one out over more most much should ' +
    "may might let lets let's i'm it's that's don't dont im youre you're we're ever think " +
    'today finally know want going still maybe thing things something anyone everyone please ' +
    'yet nobody said say much here sure hmm good fair point interesting hear others ' +
    "i'd i'll i've you'd you'll we'll we've time again"
  ).split(' '),
);

/** A text's content words, lower-case, in order. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []).filter(
    (w) => w.length > 2 && !STOP.has(w),
  );
}

/** A word's Porter stem ("bringing" → "bring", "planned" → "plan"), a possessive dropped. */
const stem = (word: string) => porterStem(word.replace(/'s$/, ''));

/**
 * What a message asks about, as stems: its content words but the name it calls its answerer
 * by ("Dit, where …", which any line naming Dit would share).
 */
export function askedWords(message: string, speaker?: string): Set<string> {
  const name = speaker?.toLowerCase();
  return new Set(
    contentWords(message)
      .filter((w) => w !== name)
      .map(stem),
  );
}

/** How many of a text's content words are among `asked` (stems). */
export function overlap(text: string, asked: ReadonlySet<string>): number {
  return contentWords(text).filter((w) => asked.has(stem(w))).length;
}

const ASKS =
  /^(who|what|when|where|which|why|how|whose|do|does|did|can|could|is|are|was|were|should|would|will|have|has|any)\b/i;

/** An address before a question: "Dit, …", "Hello agents, …", "hey you two, …". */
const ADDRESS = /^(?:[\w'-]+\s+){0,2}[\w'-]+,\s*/;
/** A sentence that only greets: "Hi!", "Hello everyone." */
const GREETS = /^(hi|hey|hello|hiya|yo|good (morning|afternoon|evening))\b[\w\s]{0,20}[.!]*$/i;

/**
 * A line that only asks: each sentence a question that starts as one ("Clio, where is the
 * picnic again?", "Hello agents, what shall we build?") or a greeting. It tells nothing to
 * recall; "I'm off to Lisbon in May, any tips?" does.
 */
export function onlyAsks(text: string): boolean {
  const sentences = text
    .trim()
    .split(/(?<=[.!?])\s+(?=\S)/)
    .map((s) => s.trim());
  const asks = (s: string) => s.endsWith('?') && ASKS.test(s.replace(ADDRESS, ''));
  return sentences.some(asks) && sentences.every((s) => asks(s) || GREETS.test(s));
}
