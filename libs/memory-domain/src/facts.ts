/** A fact that held for a while: dossier and lore facts are never deleted, only closed. */
export interface TimedFact {
  id: string;
  /** What the fact is about, e.g. `lives-in`; one current fact per subject and key. */
  key: string;
  value: string;
  validFrom: number;
  validUntil?: number;
  supersededBy?: string;
}

/** Whether the fact held at `at` (its window is half-open: `[validFrom, validUntil)`). */
export function isValidAt(fact: Pick<TimedFact, 'validFrom' | 'validUntil'>, at: number): boolean {
  return fact.validFrom <= at && (fact.validUntil === undefined || at < fact.validUntil);
}

export type FactChange<F extends TimedFact> =
  | { kind: 'unchanged'; current: F }
  | { kind: 'added'; added: F }
  | { kind: 'superseded'; closed: F; added: F }
  /** Learned late (an older message handled after a newer one): added, already closed. */
  | { kind: 'historical'; added: F };

/**
 * What learning `next` does to the current fact with the same key: nothing when it says
 * the same thing, otherwise the current one is closed at `next.validFrom` and points at
 * its successor (Zep/Graphiti-style validity windows).
 *
 * @example
 * learnFact(paris, { id: 'f2', key: 'lives-in', value: 'Berlin', validFrom: t }) // superseded
 */
export function learnFact<F extends TimedFact>(current: F | undefined, next: F): FactChange<F> {
  if (!current) return { kind: 'added', added: next };
  if (normalizeValue(current.value) === normalizeValue(next.value)) {
    return { kind: 'unchanged', current };
  }
  if (next.validFrom < current.validFrom) {
    return {
      kind: 'historical',
      added: { ...next, validUntil: current.validFrom, supersededBy: current.id },
    };
  }
  const closedAt = next.validFrom;
  return {
    kind: 'superseded',
    closed: { ...current, validUntil: closedAt, supersededBy: next.id },
    added: { ...next, validFrom: closedAt },
  };
}

const normalizeValue = (v: string) => v.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * The factor a fact's search score is multiplied by: 1 when it held at `asOf` (now, or the
 * end of the period asked about), `staleFactor` when it did not — findable, ranked after.
 */
export function validityFactor(
  fact: { validFrom?: number; validUntil?: number },
  asOf: number,
  staleFactor = 0.35,
): number {
  if (fact.validFrom === undefined) return 1;
  return isValidAt({ validFrom: fact.validFrom, validUntil: fact.validUntil }, asOf)
    ? 1
    : staleFactor;
}

/** What a user says about themselves, found by cheap patterns (the plan's self-disclosure signal). */
export interface Disclosure {
  key: string;
  value: string;
  /** The fact in the third person, e.g. `lives in Berlin` (the subject's name goes first). */
  statement: string;
}

const DISCLOSURES: {
  re: RegExp;
  key: string | ((m: RegExpMatchArray) => string);
  say: string;
  /** Values that hold side by side: the key is made per value (`is-a:nurse`). */
  each?: true;
}[] = [
  {
    re: /\bi(?:'m| am)? (?:live|living|now live|just moved|moved|relocated) (?:in|to) ([\p{L}][\p{L} .'-]{1,40})/iu,
    key: 'lives-in',
    say: 'lives in',
  },
  {
    re: /\bi(?:'m| am) (?:now )?(?:working|employed) (?:at|for) ([\p{L}\p{N}][\p{L}\p{N} .&'-]{1,40})/iu,
    key: 'works-at',
    say: 'works at',
  },
  {
    re: /\bi (?:now )?work (?:at|for) ([\p{L}\p{N}][\p{L}\p{N} .&'-]{1,40})/iu,
    key: 'works-at',
    say: 'works at',
  },
  {
    re: /\bmy (?:new )?favou?rite ([\p{L}]{2,20}) is (?:now )?([\p{L}\p{N}][\p{L}\p{N} .'-]{1,40})/iu,
    key: (m) => `favorite-${m[1].toLowerCase()}`,
    say: 'favorite',
  },
  {
    // What someone is holds beside what else they are ("a nurse", "a runner", "a bit
    // tired"): each is its own fact, never superseding another (which would rank the
    // message that said the first after the second).
    re: /\bi(?:'m| am) (?:a|an) ([\p{L}][\p{L} -]{2,40}?)(?: by trade| now)?(?=[.!,]|$)/iu,
    key: 'is-a',
    say: 'is a',
    each: true,
  },
];

/**
 * Self-disclosures in a message, first person only; values end at punctuation.
 *
 * @example
 * disclosures('I just moved to Berlin!') // [{ key: 'lives-in', value: 'Berlin', ... }]
 */
export function disclosures(text: string): Disclosure[] {
  const out: Disclosure[] = [];
  const seen = new Set<string>();
  for (const d of DISCLOSURES) {
    const m = text.match(d.re);
    if (!m) continue;
    const key = typeof d.key === 'string' ? d.key : d.key(m);
    if (seen.has(key)) continue;
    const raw = (m.length > 2 && typeof d.key !== 'string' ? m[2] : m[1]) ?? '';
    const value = raw
      .split(/\s+(?:and|but|because|since|so|now|lol|haha)\b/i)[0]
      .replace(/[\s.'-]+$/, '')
      .trim();
    if (!value) continue;
    seen.add(key);
    const statement =
      typeof d.key === 'string'
        ? `${d.say} ${value}`
        : `${d.say} ${key.slice('favorite-'.length)} is ${value}`;
    out.push({ key: d.each ? `${key}:${value.toLowerCase()}` : key, value, statement });
  }
  return out;
}
