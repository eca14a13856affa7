import type { AgentPersona } from './agent';
import type { Disposition, FollowupBias, Trigger } from './dimensions';
import { isModelFree } from './dimensions';

/** Everything the scorer reads: no clock, no randomness. */
export interface RouteContext {
  trigger: Trigger;
  agent: AgentPersona;
  /** The inbound text (absent for speculative turns). */
  content?: string;
  authorIsBot?: boolean;
  mentioned: boolean;
  /** Remaining fraction of the guild's daily budget, 0..1; absent when unknown. */
  budgetFraction?: number;
  bias?: FollowupBias;
}

export interface Candidate {
  dispositionId: string;
  score: number;
}

/** Below this budget fraction only model-free dispositions remain. */
export const BUDGET_EXHAUSTED = 0.02;
/** Below this, high-reasoning dispositions are clamped. */
export const BUDGET_LOW = 0.3;

const QUESTION =
  /\?\s*$|^(who|what|when|where|why|how|is|are|does|do|did|can|could|should|which)\b/im;
const DEBATE =
  /\b(disagree|wrong|actually|versus|vs\.?|better than|worse than|no way|debate|argue)\b/i;
const CALLBACK = /\b(remember|last time|back when|used to|again|before|that time)\b/i;
const BANTER = /\b(lol|lmao|haha|roast|cope|skill issue|ratio)\b|😂|🤣/i;

/**
 * Hard gates: a disposition that fails one scores 0 and is never sampled.
 * Returns the reason, or null when the disposition may be chosen.
 */
export function gate(d: Disposition, ctx: RouteContext): string | null {
  const weight = (d.weight ?? 1) * (ctx.agent.weights?.[d.id] ?? 1);
  if (!(weight > 0)) return 'weight';
  const silent = d.outputShape === 'silent';
  if (silent && ctx.mentioned) return 'mentioned';
  if (d.speculativeOnly && ctx.trigger !== 'speculative') return 'speculative-only';
  if (ctx.trigger === 'speculative' && !d.speculativeOnly && !silent) return 'not-speculative';
  const voices = ctx.agent.voices;
  if (!silent && voices?.length && !voices.includes(d.voice)) return 'voice';
  if (ctx.budgetFraction !== undefined && ctx.budgetFraction < BUDGET_EXHAUSTED && !isModelFree(d))
    return 'budget';
  return null;
}

function signalBoost(d: Disposition, ctx: RouteContext): number {
  const text = ctx.content ?? '';
  let b = 1;
  if (ctx.mentioned && (d.outputShape === 'single-line' || d.outputShape === 'multi-line')) b *= 2;
  if (ctx.mentioned && d.outputShape === 'react-only') b *= 0.3;
  if (!ctx.mentioned && ctx.trigger === 'reactive' && d.outputShape === 'silent') b *= 3;
  if (ctx.authorIsBot && d.outputShape === 'silent') b *= 2;
  if (QUESTION.test(text) && (d.voice === 'deadpan' || d.voice === 'fact-drop')) b *= 2;
  if (DEBATE.test(text) && d.searchPosture === 'contradiction-hunt') b *= 2;
  if (CALLBACK.test(text) && d.searchPosture === 'callback-hunt') b *= 2.5;
  if (BANTER.test(text) && (d.voice === 'sharp' || d.voice === 'playful')) b *= 1.8;
  if (text.length > 240 && (d.outputShape === 'multi-line' || d.outputShape === 'burst')) b *= 1.3;
  if (text.length > 0 && text.length < 24 && d.reasoningDepth === 'low') b *= 1.5;
  return b;
}

function biasBoost(d: Disposition, bias: FollowupBias | undefined): number {
  switch (bias) {
    case undefined:
      return 1;
    case 'go-deeper':
      return d.reasoningDepth === 'high' ? 3 : d.reasoningDepth === 'medium' ? 1.5 : 0.5;
    case 'contrarian-self':
      return d.voice === 'contrarian' ? 4 : 0.7;
    case 'self-correct':
      return (d.voice === 'deadpan' ? 3 : 1) * (d.reasoningDepth === 'low' ? 2 : 0.7);
    case 'add-nuance':
      return d.outputShape === 'multi-line' || d.outputShape === 'burst' ? 2.5 : 0.8;
    case 'callback-later':
      return d.searchPosture === 'callback-hunt' ? 4 : 0.8;
    default: {
      const never: never = bias;
      return never;
    }
  }
}

function budgetClamp(d: Disposition, fraction: number | undefined): number {
  if (fraction === undefined || fraction >= BUDGET_LOW) return 1;
  if (d.reasoningDepth === 'high') return 0.15;
  if (d.reasoningDepth === 'medium') return 0.5;
  return 1;
}

/** Scores every disposition: gated ones score 0; the rest by weight × signals × bias × budget. */
export function scoreDispositions(
  dispositions: readonly Disposition[],
  ctx: RouteContext,
): Candidate[] {
  return dispositions.map((d) => {
    if (gate(d, ctx)) return { dispositionId: d.id, score: 0 };
    const weight = (d.weight ?? 1) * (ctx.agent.weights?.[d.id] ?? 1);
    const score =
      weight * signalBoost(d, ctx) * biasBoost(d, ctx.bias) * budgetClamp(d, ctx.budgetFraction);
    return { dispositionId: d.id, score: Math.round(score * 1e6) / 1e6 };
  });
}
