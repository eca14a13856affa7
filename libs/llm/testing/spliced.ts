/**
 * Finds the marks of a reply built by splicing pieces of other people's sentences into a
 * template ("Good question about between three people.", "I think Basil brought up Open
 * question on peppers in the raised."). A reply passes when:
 * - every quoted span ("…") is a whole source message or a whole sentence of one;
 * - every sentence starts with a capital (or a quote) and ends with `.`, `!` or `?`, and no
 *   sentence ends on a word that needs another after it ("the", "about", "between", …);
 * - outside quotes, the reply shares no run of two or more content words with a source
 *   sentence, unless the run is that sentence's whole rest after its speaker's "I" ("I'm
 *   learning the cello" reported as "you're learning the cello").
 */

/** Words that carry no topic: runs of them are shared by any two English texts. */
const FUNCTION_WORDS = new Set(
  (
    'a an the of to in on at for with about between and or but from by into as than that this ' +
    'these those it its is are was were be been am do does did have has had will would can could ' +
    "should may might must shall i i'm i've i'd i'll me my mine we us our you you're your they " +
    'them their he she him her his not no nothing so just also still yet here there what when ' +
    'where who why how if then there anyone someone everyone all any some one'
  ).split(' '),
);

/** Words a sentence cannot end on. */
const DANGLING = new Set(
  (
    'the a an of to in on at for with about between and or but from by into my your their our ' +
    'his her its than as'
  ).split(' '),
);

/** What may stand before a reported run in its source: its speaker, as said of themselves. */
const SPEAKER_PREFIX =
  /^(i|i'm|i've|i'd|i'll)( (am|was|have|just|also|finally|recently|really|now|actually|still))*$/;

const normal = (text: string) =>
  text.replace(/[’‘]/g, "'").replace(/["“”]/g, "'").replace(/\s+/g, ' ').trim();

const words = (text: string) =>
  normal(text)
    .toLowerCase()
    .match(/[a-z0-9][a-z0-9']*/g) ?? [];

const sentences = (text: string) =>
  normal(text)
    .split(/(?<=[.!?])\s+(?=\S)/)
    .filter(Boolean);

/** The problems found in `reply`, given the texts it may quote or report (empty: none). */
export function spliceProblems(reply: string, sources: readonly string[]): string[] {
  const problems: string[] = [];
  const wholes = new Set(sources.flatMap((s) => [normal(s), ...sentences(s)]));
  const quotes = [...reply.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  if ((reply.match(/"/g) ?? []).length % 2) problems.push('an unclosed quote');
  for (const q of quotes) {
    if (!wholes.has(normal(q)))
      problems.push(`quotes "${q}", neither a whole message nor a whole sentence of one`);
  }
  // Quotes are opaque: their content is masked, keeping whether it ended its sentence.
  const masked = reply.replace(
    /"([^"]*)"/g,
    (_m, q: string) => `"Q${/[.!?]$/.test(q) ? q.slice(-1) : ''}"`,
  );
  for (const s of masked.split(/(?<=[.!?]"?)\s+(?=\S)/).filter(Boolean)) {
    const start = s.replace(/^[^\p{L}\p{N}"]+/u, '');
    if (!/^("|\p{Lu}|\p{N})/u.test(start)) problems.push(`"${s}" does not start with a capital`);
    if (!/[.!?]"?$/.test(s)) problems.push(`"${s}" does not end with . ! or ?`);
    else if (!/"$/.test(s)) {
      const last = words(s).at(-1);
      if (last && DANGLING.has(last)) problems.push(`"${s}" ends on "${last}"`);
    }
  }
  // Outside quotes: no piece of a source sentence but a speaker's whole report of themselves.
  const segments = reply
    .replace(/"[^"]*"/g, ' | ')
    .split(/[|.!?:;]/)
    .map(words)
    .filter((w) => w.length > 1);
  for (const source of sources) {
    for (const sentence of sentences(source)) {
      const S = words(sentence);
      for (const R of segments) {
        for (const run of maximalRuns(R, S)) {
          const piece = S.slice(run.j, run.j + run.len);
          if (piece.filter((w) => !FUNCTION_WORDS.has(w)).length < 2) continue;
          const toEnd = run.j + run.len === S.length;
          const before = S.slice(0, run.j).join(' ');
          if (toEnd && (before === '' || SPEAKER_PREFIX.test(before))) continue;
          problems.push(`splices "${piece.join(' ')}" out of "${sentence}"`);
        }
      }
    }
  }
  return problems;
}

/** Common runs of `a` and `b` that extend neither way: `{ j, len }` of their place in `b`. */
function maximalRuns(a: string[], b: string[]): { j: number; len: number }[] {
  const out: { j: number; len: number }[] = [];
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) row[j] = prev[j - 1] + 1;
    }
    for (let j = 1; j <= b.length; j++) {
      const len = row[j];
      const extends_ = i < a.length && j < b.length && a[i] === b[j];
      if (len > 1 && !extends_) out.push({ j: j - len, len });
    }
    prev = row;
  }
  return out;
}
