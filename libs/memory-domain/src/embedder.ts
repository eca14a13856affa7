/** The offline embedder's name, stored next to every vector it made. */
export const HASHED_EMBEDDER_MODEL = 'dirigent-hashed-ngram-v1';
export const HASHED_EMBEDDER_DIMENSIONS = 512;

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his ' +
    'i if in into is it its just me my of on or our she so than that the their them then there ' +
    'these they this to too us was we were what when where which who whom why will with would ' +
    'you your yours about also any all am im ive dont does did got get how whose anybody anyone someone'
  ).split(' '),
);

const SUFFIXES = ['ingly', 'edly', 'ation', 'ments', 'ment', 'ness', 'ings', 'ing', 'ers', 'ies'];
const SHORT_SUFFIXES = ['ed', 'er', 'es', 'ly', 's', 'e', 'y'];

/** A light suffix-stripping stemmer: enough to meet "moved"/"moving"/"moves" at "mov". */
export function stem(word: string): string {
  let w = word;
  const long = SUFFIXES.find((s) => w.length - s.length >= 3 && w.endsWith(s));
  if (long) w = w.slice(0, -long.length);
  else
    for (const s of SHORT_SUFFIXES) {
      if (w.length - s.length >= 3 && w.endsWith(s)) {
        w = w.slice(0, -s.length);
        break;
      }
    }
  // "running" → "runn" → "run": a doubled final consonant left by the suffix.
  if (w.length >= 4 && w[w.length - 1] === w[w.length - 2] && !/[aeiou]/.test(w[w.length - 1])) {
    w = w.slice(0, -1);
  }
  return w;
}

/** Lower-cased words without accents, punctuation or stop words. */
export function contentWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

function fnv1a(s: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function add(v: Float32Array, feature: string, weight: number): void {
  const h = fnv1a(feature, 0);
  const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
  v[h % v.length] += sign * weight;
}

/**
 * A weight-free text embedding: stemmed word unigrams plus character 3-5-grams of every
 * word, hashed with a sign into a fixed number of dimensions and L2-normalised. Two
 * texts sharing stems or word pieces ("deploy"/"deployment", "Rust"/"rustacean") score
 * above unrelated ones; it knows no synonyms. Deterministic: the same text always gives
 * the same vector, on every machine.
 *
 * @example
 * cosine(hashedEmbedding('moving to Berlin'), hashedEmbedding('she moved to berlin')) > 0.5
 */
export function hashedEmbedding(text: string, dimensions = HASHED_EMBEDDER_DIMENSIONS): number[] {
  const v = new Float32Array(dimensions);
  for (const word of contentWords(text)) {
    const s = stem(word);
    add(v, `w:${s}`, 1);
    const padded = `<${s}>`;
    const grams: string[] = [];
    for (let n = 3; n <= 5; n++) {
      for (let i = 0; i + n <= padded.length; i++) grams.push(padded.slice(i, i + n));
    }
    // A long word contributes as much as a short one, spread over its pieces.
    const w = 1.2 / Math.sqrt(grams.length || 1);
    for (const g of grams) add(v, `g:${g}`, w);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm ? x / norm : 0));
}

/** Cosine similarity; 0 for a zero vector or vectors of different lengths. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
