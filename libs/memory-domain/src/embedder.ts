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

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SIGN_SEED = 0x9e3779b9;

/**
 * Adds a feature, the string `tag` + `s.slice(from, to)`, hashed (FNV-1a) to a coordinate
 * with a sign from a second seed; both hashes in one pass and without building the string
 * (most of the embedder's time was the feature strings and their garbage).
 */
function add(
  v: Float32Array,
  tag: string,
  s: string,
  from: number,
  to: number,
  weight: number,
): number {
  let h = FNV_OFFSET;
  let g = FNV_OFFSET ^ SIGN_SEED;
  for (let i = 0; i < tag.length; i++) {
    const c = tag.charCodeAt(i);
    h = Math.imul(h ^ c, FNV_PRIME);
    g = Math.imul(g ^ c, FNV_PRIME);
  }
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    h = Math.imul(h ^ c, FNV_PRIME);
    g = Math.imul(g ^ c, FNV_PRIME);
  }
  v[(h >>> 0) % v.length] += ((g >>> 0) & 1 ? 1 : -1) * weight;
  return h >>> 0;
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
  const v = hashedFeatures(text, dimensions);
  const norm = Math.sqrt(sumOfSquares(v));
  return Array.from(v, (x) => (norm ? x / norm : 0));
}

/**
 * {@link hashedEmbedding} as 4-byte floats (each value the same as `Math.fround` of its
 * double), without the intermediate array: what a vector index stores.
 */
export function hashedEmbeddingF32(
  text: string,
  dimensions = HASHED_EMBEDDER_DIMENSIONS,
): Float32Array {
  return normalizeInPlace(hashedFeatures(text, dimensions));
}

/** Divides a vector by its length (a zero vector stays zero). */
function normalizeInPlace(v: Float32Array): Float32Array {
  const norm = Math.sqrt(sumOfSquares(v));
  if (norm) for (let i = 0; i < v.length; i++) if (v[i] !== 0) v[i] = v[i] / norm;
  return v;
}

/** A feature's 32-bit key (its hash before the modulo) and its weight in the text. */
type KeepFeature = (key: number, weight: number) => void;

/**
 * The unnormalised sum of a text's hashed features; `keep` is told each stem feature and
 * each 5-gram (the features an index of candidates files a text under).
 */
function hashedFeatures(text: string, dimensions: number, keep?: KeepFeature): Float32Array {
  const v = new Float32Array(dimensions);
  for (const word of contentWords(text)) {
    const s = stem(word);
    const key = add(v, 'w:', s, 0, s.length, 1);
    keep?.(key, 1);
    const padded = `<${s}>`;
    const len = padded.length;
    // Character 3-, 4- and 5-grams of the padded stem.
    const grams = Math.max(0, len - 2) + Math.max(0, len - 3) + Math.max(0, len - 4);
    // A long word contributes as much as a short one, spread over its pieces.
    const w = 1.2 / Math.sqrt(grams || 1);
    for (let n = 3; n <= 5; n++) {
      for (let i = 0; i + n <= len; i++) {
        const gram = add(v, 'g:', padded, i, i + n, w);
        if (n === 5) keep?.(gram, w);
      }
    }
  }
  return v;
}

/** A text's vector and the features a {@link FeatureIndex} files it under. */
export interface HashedIndexFeatures {
  vector: Float32Array;
  keys: Uint32Array;
  weights: Float32Array;
}

/**
 * A text's {@link hashedEmbeddingF32} vector and the features it is filed under in a
 * {@link FeatureIndex}: its stems and its words' 5-grams, by their 32-bit keys (distinct
 * features rarely share one, unlike the vector's coordinates), each with its weight in the
 * normalised vector. Two texts' dot product is the sum over the features they share (all
 * of them, not only these) plus the noise of coordinates shared by chance.
 */
export function hashedIndexFeatures(
  text: string,
  dimensions = HASHED_EMBEDDER_DIMENSIONS,
): HashedIndexFeatures {
  const kept = new Map<number, number>();
  const v = hashedFeatures(text, dimensions, (key, w) => kept.set(key, (kept.get(key) ?? 0) + w));
  const norm = Math.sqrt(sumOfSquares(v));
  normalizeInPlace(v);
  return {
    vector: v,
    keys: Uint32Array.from(kept.keys()),
    weights: Float32Array.from(kept.values(), (w) => (norm ? w / norm : 0)),
  };
}

function sumOfSquares(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return sum;
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
