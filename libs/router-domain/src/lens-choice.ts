import type { LensSwap } from '@dirigent/contracts';
import type { Disposition, ReasoningDepth } from './dimensions';
import { isModelFree } from './dimensions';
import { seededRandom } from './seeded';

/** Chance of the stochastic off-axis lens swap on a speaking turn (temperature > 0). */
export const OFF_AXIS_CHANCE = 0.15;

/**
 * The lenses an off-axis swap draws from, by reasoning depth: the seed's "route a
 * quick-react through serendipity once in a while", widened so that every lens no
 * canonical disposition names is reached by some turn.
 */
export const OFF_AXIS_LENSES: Readonly<Record<ReasoningDepth, readonly string[]>> = {
  low: ['serendipity', 'time-shifted', 'unanswered', 'narrow-live'],
  medium: [
    'live+dossiers',
    'epochs-only',
    'time-shifted',
    'unanswered',
    'archive-topic-deep',
    'serendipity',
  ],
  high: [
    'full-rich',
    'archive-topic-deep',
    'epochs-only',
    'live+lore+dossiers',
    'unanswered',
    'time-shifted',
  ],
};

/**
 * The lenses that search memory for what the message is about across the archive, beside
 * the recent talk: an off-axis swap on a memory question ("do you remember …") draws from
 * these, so the seeded swap never trades the question's subject for a vibe or a time window.
 */
export const RECALL_LENSES: readonly string[] = ['archive-topic-deep', 'full-rich'];

/** With this many humans active the live lenses add the present users' dossiers. */
export const GROUP_HUMANS = 3;
const WITH_DOSSIERS: Readonly<Record<string, string>> = {
  live: 'live+dossiers',
  'live+lore': 'live+lore+dossiers',
};

export type { LensSwap } from '@dirigent/contracts';

export interface LensChoice {
  lens: string;
  swap?: LensSwap;
}

/**
 * The lens a turn reads memory through: the disposition's own, with the present users'
 * dossiers when a group is talking, and once in a while (seeded) an off-axis lens of the
 * same depth. Model-free shapes read nothing and keep theirs. On a memory question
 * (`recall`) the off-axis lens is one of {@link RECALL_LENSES} instead, drawn with the same
 * seeded numbers. Pure: the seed decides.
 *
 * @example
 * chooseLens(quickReact, { humansActive: 4, seed: 'm1', temperature: 0.7 }).lens // 'live+dossiers' (or an off-axis one)
 */
export function chooseLens(
  d: Disposition,
  ctx: { humansActive?: number; seed: string; temperature: number; recall?: boolean },
): LensChoice {
  const own = d.contextStrategy;
  if (isModelFree(d)) return { lens: own };
  const grouped = (ctx.humansActive ?? 0) >= GROUP_HUMANS ? WITH_DOSSIERS[own] : undefined;
  const base: LensChoice = grouped
    ? { lens: grouped, swap: { from: own, to: grouped, reason: 'room' } }
    : { lens: own };
  if (ctx.temperature <= 0.01) return base;
  const rnd = seededRandom(ctx.seed, 'lens');
  if (!(rnd() < OFF_AXIS_CHANCE)) return base;
  const pool = (ctx.recall ? RECALL_LENSES : OFF_AXIS_LENSES[d.reasoningDepth]).filter(
    (l) => l !== base.lens,
  );
  const to = pool[Math.min(pool.length - 1, Math.floor(rnd() * pool.length))];
  return { lens: to, swap: { from: own, to, reason: 'off-axis' } };
}
