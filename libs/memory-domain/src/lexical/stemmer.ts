// The Porter stemming algorithm (M. F. Porter, 1980, "An algorithm for suffix stripping"),
// as in its reference JavaScript rendering: the stemmer BM25 baselines and Lucene's
// `PorterStemFilter` use, so "painting", "painted", "paints" all meet at "paint".

const STEP2: Record<string, string> = {
  ational: 'ate',
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  izer: 'ize',
  bli: 'ble',
  alli: 'al',
  entli: 'ent',
  eli: 'e',
  ousli: 'ous',
  ization: 'ize',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  iveness: 'ive',
  fulness: 'ful',
  ousness: 'ous',
  aliti: 'al',
  iviti: 'ive',
  biliti: 'ble',
  logi: 'log',
};
const STEP3: Record<string, string> = {
  icate: 'ic',
  ative: '',
  alize: 'al',
  iciti: 'ic',
  ical: 'ic',
  ful: '',
  ness: '',
};

const c = '[^aeiou]';
const v = '[aeiouy]';
const C = `${c}[^aeiouy]*`;
const V = `${v}[aeiou]*`;
const MGR0 = new RegExp(`^(${C})?${V}${C}`);
const MEQ1 = new RegExp(`^(${C})?${V}${C}(${V})?$`);
const MGR1 = new RegExp(`^(${C})?${V}${C}${V}${C}`);
const HAS_VOWEL = new RegExp(`^(${C})?${v}`);
const CVC = new RegExp(`^${C}${v}[^aeiouwxy]$`);
const DOUBLE = /([^aeiouylsz])\1$/;
const STEP2_RE =
  /^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$/;
const STEP3_RE = /^(.+?)(icate|ative|alize|iciti|ical|ful|ness)$/;
const STEP4_RE =
  /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/;
const STEP4_ION = /^(.+?)(s|t)(ion)$/;

function porter(word: string): string {
  if (word.length < 3) return word;
  let w = word;
  const initialY = w[0] === 'y';
  if (initialY) w = `Y${w.slice(1)}`;
  // Step 1a: plurals.
  let m: RegExpExecArray | null;
  if ((m = /^(.+?)(ss|i)es$/.exec(w))) w = m[1] + m[2];
  else if ((m = /^(.+?)([^s])s$/.exec(w))) w = m[1] + m[2];
  // Step 1b: -eed, -ed, -ing.
  if ((m = /^(.+?)eed$/.exec(w))) {
    if (MGR0.test(m[1])) w = w.slice(0, -1);
  } else if ((m = /^(.+?)(ed|ing)$/.exec(w)) && HAS_VOWEL.test(m[1])) {
    w = m[1];
    if (/(at|bl|iz)$/.test(w)) w += 'e';
    else if (DOUBLE.test(w)) w = w.slice(0, -1);
    else if (CVC.test(w)) w += 'e';
  }
  // Step 1c: y → i after a vowel-bearing stem.
  if ((m = /^(.+?)y$/.exec(w)) && HAS_VOWEL.test(m[1])) w = `${m[1]}i`;
  if ((m = STEP2_RE.exec(w)) && MGR0.test(m[1])) w = m[1] + STEP2[m[2]];
  if ((m = STEP3_RE.exec(w)) && MGR0.test(m[1])) w = m[1] + STEP3[m[2]];
  if ((m = STEP4_RE.exec(w))) {
    if (MGR1.test(m[1])) w = m[1];
  } else if ((m = STEP4_ION.exec(w)) && MGR1.test(m[1] + m[2])) {
    w = m[1] + m[2];
  }
  // Step 5: a final -e, a double l.
  if ((m = /^(.+?)e$/.exec(w))) {
    const s = m[1];
    if (MGR1.test(s) || (MEQ1.test(s) && !CVC.test(s))) w = s;
  }
  if (/ll$/.test(w) && MGR1.test(w)) w = w.slice(0, -1);
  if (initialY) w = `y${w.slice(1)}`;
  return w;
}

const cache = new Map<string, string>();

/**
 * The Porter stem of a lower-case word (memoised: chat reuses a small vocabulary).
 *
 * @example
 * porterStem('painting'); // 'paint'
 * porterStem('adoption'); // 'adopt'
 */
export function porterStem(word: string): string {
  let s = cache.get(word);
  if (s === undefined) {
    s = porter(word);
    if (cache.size > 200_000) cache.clear();
    cache.set(word, s);
  }
  return s;
}
