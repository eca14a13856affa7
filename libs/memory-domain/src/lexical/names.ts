/** Words with their case kept (possessive 's dropped), for telling names from words. */
function casedWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/['’]s\b/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * The people a question names, among those who wrote in the guild: a person is named
 * when their full display name, or its first word (at least three letters), is one of the
 * question's words. In a question that uses capitals, the name must be capitalised too
 * ("what did Will say" names Will; "will it rain" does not).
 *
 * @example
 * namedPeople('What did Priya look into?', [{ authorId: '1', name: 'Priya Shah' }]); // ['1']
 */
export function namedPeople(
  question: string,
  people: readonly { authorId: string; name: string }[],
): string[] {
  const qs = casedWords(question);
  if (!qs.length) return [];
  const cased = /\p{Lu}/u.test(question.replace(/^\s*\p{L}/u, ''));
  const present = new Set(
    qs.filter((w) => !cased || /^\p{Lu}/u.test(w)).map((w) => w.toLowerCase()),
  );
  const joined = ` ${qs.join(' ').toLowerCase()} `;
  const out: string[] = [];
  for (const p of people) {
    const parts = nameParts(p.name);
    if (!parts.length) continue;
    const full = parts.length > 1 && joined.includes(` ${parts.join(' ')} `);
    const first = parts[0].length >= 3 && present.has(parts[0]);
    if (full || first) out.push(p.authorId);
  }
  return out;
}

/** A display name's words, lower-cased, remembered: every question reads every name. */
const partsOfName = new Map<string, string[]>();
function nameParts(name: string): string[] {
  let parts = partsOfName.get(name);
  if (!parts) {
    if (partsOfName.size >= 50_000) partsOfName.clear();
    parts = casedWords(name).map((w) => w.toLowerCase());
    partsOfName.set(name, parts);
  }
  return parts;
}

/** "I", "OK": capitalised words that name nothing. */
const NOT_NAMES = new Set(['i', 'im', 'ive', 'id', 'ill', 'ok', 'okay', 'omg', 'lol']);

/**
 * The proper names a text says: capitalised words that do not open a sentence ("we
 * adopted a terrier called Biscuit" → Biscuit; "Mount Tallow"), as written.
 *
 * @example
 * properNames('We went to Lisbon with Ana. Great trip'); // ['Lisbon', 'Ana']
 */
export function properNames(text: string): string[] {
  const out: string[] = [];
  for (const sentence of text.split(/[.!?;:\n]+|\s[-–—]\s/)) {
    const ws = sentence.split(/[^\p{L}\p{N}'’]+/u).filter(Boolean);
    ws.forEach((w, i) => {
      const bare = w.replace(/['’]s$/, '');
      if (i === 0 || !/^\p{Lu}\p{Ll}/u.test(bare)) return;
      if (!NOT_NAMES.has(bare.toLowerCase())) out.push(bare);
    });
  }
  return out;
}
