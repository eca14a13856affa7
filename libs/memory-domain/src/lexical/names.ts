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
