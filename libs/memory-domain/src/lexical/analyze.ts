import { porterStem } from './stemmer';

/**
 * English function words and the words questions are made of ("what did … say about",
 * "when was …"): they carry no topic, and in chat they are in every other message.
 */
const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out ' +
    'over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves im ive id ill youre ' +
    'dont didnt doesnt isnt wasnt cant wont thats whats also yes yeah oh ok okay hey hi lol ' +
    'really actually ever tell told say said says mention mentioned anything something thing ' +
    'things kind sort one ones get got likely probably might maybe'
  ).split(' '),
);

/** Lower-cased words without accents; possessive 's and inner apostrophes folded away. */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 || /\d/.test(w));
}

export const isStopword = (word: string) => STOPWORDS.has(word);

/**
 * The index terms of a text: its words without stop words, Porter-stemmed. The same
 * analysis for documents and queries, so "painted" in a question meets "painting".
 *
 * @example
 * terms("When did Tom start painting again?"); // ['tom', 'start', 'paint']
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOPWORDS.has(w)) out.push(porterStem(w));
  return out;
}
