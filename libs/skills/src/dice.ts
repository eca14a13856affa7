import { createHash } from 'node:crypto';

/** One term of a notation: `count` dice of `sides`, or a constant (`sides` 0), signed. */
interface Term {
  sign: 1 | -1;
  count: number;
  sides: number;
}

export const DICE_LIMITS = { maxDice: 100, maxSides: 1000, maxConstant: 100000 } as const;

export interface DiceRoll {
  notation: string;
  /** Each die's face, in order (terms left to right). */
  rolls: number[];
  total: number;
}

const TERM = /^([+-]?)(?:(\d*)d(\d+)|(\d+))/i;

/** The terms of a notation (`2d6+1`, `d20`, `3d8-2+1d4`), or an error naming what is wrong. */
export function parseNotation(notation: string): { terms: Term[] } | { error: string } {
  let rest = notation.replace(/\s+/g, '');
  if (!rest) return { error: 'must not be empty' };
  const terms: Term[] = [];
  while (rest) {
    const m = TERM.exec(rest);
    if (!m || (terms.length > 0 && !m[1])) return { error: `cannot read "${rest}"` };
    const sign = m[1] === '-' ? -1 : 1;
    if (m[4] !== undefined) {
      const value = Number(m[4]);
      if (value > DICE_LIMITS.maxConstant)
        return { error: `constants go up to ${DICE_LIMITS.maxConstant}` };
      terms.push({ sign, count: value, sides: 0 });
    } else {
      const count = m[2] ? Number(m[2]) : 1;
      const sides = Number(m[3]);
      if (count < 1) return { error: 'a term rolls at least one die' };
      if (sides < 2 || sides > DICE_LIMITS.maxSides)
        return { error: `dice have 2 to ${DICE_LIMITS.maxSides} sides` };
      terms.push({ sign, count, sides });
    }
    rest = rest.slice(m[0].length);
  }
  const dice = terms.reduce((n, t) => n + (t.sides ? t.count : 0), 0);
  if (dice === 0) return { error: 'roll at least one die (e.g. 2d6+1)' };
  if (dice > DICE_LIMITS.maxDice) return { error: `at most ${DICE_LIMITS.maxDice} dice` };
  return { terms };
}

/** A uniform face in 1..sides from the seed and the die's index (48 bits of sha256). */
function face(seed: string, index: number, sides: number): number {
  const h = createHash('sha256').update(`${seed}\u0000${index}`).digest();
  return 1 + Math.floor((h.readUIntBE(0, 6) / 2 ** 48) * sides);
}

/**
 * Rolls a dice notation, deterministically from `seed` (the same seed, the same rolls).
 *
 * @example
 * rollDice('2d6+1', 'decision-1:tool:0'); // { notation: '2d6+1', rolls: [4, 2], total: 7 }
 */
export function rollDice(notation: string, seed: string): DiceRoll | { error: string } {
  const parsed = parseNotation(notation);
  if ('error' in parsed) return parsed;
  const rolls: number[] = [];
  let total = 0;
  for (const t of parsed.terms) {
    if (!t.sides) {
      total += t.sign * t.count;
      continue;
    }
    for (let i = 0; i < t.count; i++) {
      const f = face(seed, rolls.length, t.sides);
      rolls.push(f);
      total += t.sign * f;
    }
  }
  return { notation: notation.replace(/\s+/g, ''), rolls, total };
}
