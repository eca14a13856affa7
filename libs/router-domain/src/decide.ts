import { CANONICAL_DISPOSITIONS } from './canonical';
import type { Dimensions, Disposition } from './dimensions';
import { dimensionsOf, isModelFree } from './dimensions';
import { chooseLens, type LensSwap } from './lens-choice';
import { featuresOf, gate, scoreDispositions, type Candidate, type RouteContext } from './scoring';
import { asksMemory } from './room';
import { seededRandom } from './seeded';

export interface RouteInput extends RouteContext {
  /** Logged with the decision; the same input and seed give the same choice. */
  seed: string;
  /** Stochasticity: 0 picks the top score; 1 samples in proportion to the scores. */
  temperature?: number;
  /** The cheap classifier's pick of a tight top pair: it wins when it scored above 0. */
  tieBreak?: string;
}

export interface RouteDecision {
  candidates: Candidate[];
  chosen: string;
  seed: string;
  dimensions: Dimensions;
  /** The top two scores are within 10%: a cheap classifier may break the tie. */
  tight: boolean;
  /** The lens differs from the disposition's own (a group present, or the off-axis swap). */
  lensSwap?: LensSwap;
}

export const DEFAULT_TEMPERATURE = 0.7;

/**
 * Draws one candidate with probability ∝ score^(1/temperature). Candidates scoring 0 are
 * never drawn; returns null when none scores above 0.
 */
export function sampleCandidate(
  candidates: readonly Candidate[],
  seed: string,
  temperature = DEFAULT_TEMPERATURE,
): string | null {
  const live = candidates.filter((c) => c.score > 0);
  if (!live.length) return null;
  if (temperature <= 0.01) {
    return live.reduce((best, c) => (c.score > best.score ? c : best)).dispositionId;
  }
  const top = Math.max(...live.map((c) => c.score));
  const weights = live.map((c) => Math.pow(c.score / top, 1 / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  let r = seededRandom(seed, 'sample')() * total;
  for (let i = 0; i < live.length; i++) {
    r -= weights[i];
    if (r < 0) return live[i].dispositionId;
  }
  return live[live.length - 1].dispositionId;
}

/** When every candidate is gated out: a mention still gets a voice, else silence. */
function fallback(dispositions: readonly Disposition[], ctx: RouteContext): Disposition | null {
  const relaxed = dispositions.filter((d) => {
    const reason = gate(d, ctx);
    return (
      reason === 'voice' ||
      reason === 'budget' ||
      reason === 'asked-to-act' ||
      reason === 'asked-to-recall' ||
      reason === 'asked-a-question'
    );
  });
  const speaking = relaxed.filter((d) => d.outputShape !== 'silent');
  if (ctx.mentioned && speaking.length) {
    // Posting first (an emoji is the last resort of a request to act), then the cheapest.
    const rank = (d: Disposition) =>
      Number(isModelFree(d)) * 2 + Number(d.reasoningDepth !== 'low');
    return [...speaking].sort((a, b) => rank(a) - rank(b))[0];
  }
  return ctx.mentioned ? null : (dispositions.find((d) => d.outputShape === 'silent') ?? null);
}

/**
 * The disposition router: scores with hard gates, then samples from the scores with the
 * stochasticity temperature and the given seed. Pure: same input, same decision.
 *
 * @example
 * const d = route(CANONICAL_DISPOSITIONS, { trigger: 'reactive', agent, content: 'hi @dit',
 *   mentioned: true, seed: 'm-123' });
 */
export function route(dispositions: readonly Disposition[], input: RouteInput): RouteDecision {
  const candidates = scoreDispositions(dispositions, input);
  const sorted = [...candidates].sort((a, b) => b.score - a.score);
  const live = (id: string | undefined) =>
    id !== undefined && candidates.some((c) => c.dispositionId === id && c.score > 0);
  const parent = input.interruption?.parentDispositionId;
  let chosenId: string | null = live(input.tieBreak)
    ? input.tieBreak!
    : input.interruption?.action === 'continue' && live(parent)
      ? parent!
      : sampleCandidate(candidates, input.seed, input.temperature);
  if (!chosenId) chosenId = fallback(dispositions, input)?.id ?? null;
  const chosen = dispositions.find((d) => d.id === chosenId) ?? SILENT_FALLBACK;
  const tight =
    sorted.length > 1 && sorted[1].score > 0 && sorted[1].score >= sorted[0].score * 0.9;
  const lens = chooseLens(chosen, {
    humansActive: input.room?.humansActive,
    seed: input.seed,
    temperature: input.temperature ?? DEFAULT_TEMPERATURE,
    recall: asksMemory(featuresOf(input)),
  });
  return {
    candidates,
    chosen: chosen.id,
    seed: input.seed,
    dimensions: { ...dimensionsOf(chosen), contextStrategy: lens.lens },
    tight,
    ...(lens.swap ? { lensSwap: lens.swap } : {}),
  };
}

/**
 * Used only when the store holds no disposition that may be chosen: the canonical
 * `silent-listen`, as its one definition spells it.
 */
export const SILENT_FALLBACK: Disposition = CANONICAL_DISPOSITIONS.find(
  (d) => d.id === 'silent-listen',
)!;
