/** How a forgotten user can still show in text written by or about others. */
export interface Forgotten {
  userId: string;
  /** Their display names (from their messages and dossier). */
  names: readonly string[];
  /**
   * What they said, as hashes of every run of six words (`quoteHashes`): enough to spot a
   * text that quotes them, without keeping their words.
   */
  quotes?: readonly string[];
}

/** Words of a quote that make it theirs: a run this long is not a coincidence. */
const QUOTE_WORDS = 6;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** Names worth looking for: at least three letters (a name "Al" is in too many words). */
function namePattern(f: Forgotten): RegExp {
  const names = [...new Set(f.names.map((n) => n.trim()).filter((n) => n.length >= 3))].sort(
    (a, b) => b.length - a.length,
  );
  const alternatives = [
    ...names.map((n) => `(?<![\\p{L}\\p{N}])${escape(n)}(?![\\p{L}\\p{N}])`),
    `<@!?${escape(f.userId)}>`,
    `(?<!\\d)${escape(f.userId)}(?!\\d)`,
  ];
  return new RegExp(alternatives.join('|'), 'giu');
}

/** 52 bits of FNV-1a over a string, in base 36. */
function hash(s: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x1000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return ((h1 & 0xfffff) * 0x100000000 + h2).toString(36);
}

/** The runs of six words of a text, hashed. */
function shingles(text: string): string[] {
  const w = words(text);
  const out: string[] = [];
  for (let i = 0; i + QUOTE_WORDS <= w.length; i++)
    out.push(hash(w.slice(i, i + QUOTE_WORDS).join(' ')));
  return out;
}

/**
 * What a forgotten user said, as the hashes `Forgotten.quotes` holds (newest texts first;
 * at most `max`).
 */
export function quoteHashes(texts: readonly string[], max = 50_000): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const s of shingles(t)) {
      if (out.size >= max) return [...out];
      out.add(s);
    }
  }
  return [...out];
}

/** Whether a text quotes six words in a row of what the forgotten user said. */
export function quotesForgotten(text: string, f: Forgotten): boolean {
  if (!f.quotes?.length || !text) return false;
  const known = new Set(f.quotes);
  return shingles(text).some((s) => known.has(s));
}

/**
 * Whether a text (another member's dossier body, a summary) names the forgotten user — a
 * display name, a mention, their id — or quotes six words in a row of what they said.
 *
 * @example
 * mentionsForgotten('Ann and Cat went hiking', { userId: '42', names: ['Cat'] }); // true
 */
export function mentionsForgotten(text: string, f: Forgotten): boolean {
  if (!text) return false;
  return namePattern(f).test(text) || quotesForgotten(text, f);
}

/**
 * The text with the forgotten user's names, mentions and id replaced by "someone", so a
 * body or summary written again from what others said does not name them.
 *
 * @example
 * scrubForgotten('lunch with Cat <@42>', { userId: '42', names: ['Cat'] }); // 'lunch with someone someone'
 */
export function scrubForgotten(text: string, f: Forgotten): string {
  return text.replace(namePattern(f), 'someone');
}

/** What stands for a message that quotes the forgotten user, in text written from it. */
export const FORGOTTEN_QUOTE = '(a quote of someone who asked to be forgotten)';

/**
 * A message's text as others' summaries may use it after a `forget`: the user's names
 * scrubbed, and a message that quotes them replaced whole by `FORGOTTEN_QUOTE`.
 */
export function withoutForgotten(text: string, f: Forgotten): string {
  return quotesForgotten(text, f) ? FORGOTTEN_QUOTE : scrubForgotten(text, f);
}
