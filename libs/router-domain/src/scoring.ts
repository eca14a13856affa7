import type { AgentPersona } from './agent';
import type { Disposition, FollowupBias, Trigger } from './dimensions';
import { isModelFree } from './dimensions';
import type { InterruptionAction } from './interruption';
import { GROUP_HUMANS } from './lens-choice';
import {
  asksMemory,
  MAX_BOT_RUN,
  messageFeatures,
  type MemorySignals,
  type MessageFeatures,
  type RoomSignals,
} from './room';

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
  /** What the scorer reads of the message; derived from `content` when absent. */
  features?: MessageFeatures;
  /** The channel's activity; absent: unknown (no room rules apply). */
  room?: RoomSignals;
  /** Memory's hits on the topic; absent: not asked. */
  memory?: MemorySignals;
  /** Hour of the day (0-23) in the community's time zone. */
  hour?: number;
  /** A mid-burst interruption, as judged from the new message. */
  interruption?: { action: InterruptionAction; parentDispositionId: string };
}

export interface Candidate {
  dispositionId: string;
  score: number;
}

/** Below this budget fraction only model-free dispositions remain. */
export const BUDGET_EXHAUSTED = 0.02;
/** Below this, high-reasoning dispositions are clamped. */
export const BUDGET_LOW = 0.3;

/** The message's features: given, or read from its text. */
export const featuresOf = (ctx: RouteContext): MessageFeatures =>
  ctx.features ?? messageFeatures(ctx.content ?? '', { authorIsBot: ctx.authorIsBot });

const posts = (d: Disposition) => !isModelFree(d);

/**
 * Hard gates: a disposition that fails one scores 0 and is never sampled.
 * Returns the reason, or null when the disposition may be chosen.
 */
export function gate(d: Disposition, ctx: RouteContext): string | null {
  const weight = (d.weight ?? 1) * (ctx.agent.weights?.[d.id] ?? 1);
  if (!(weight > 0)) return 'weight';
  const silent = d.outputShape === 'silent';
  if (silent && ctx.mentioned) return 'mentioned';
  // Asked by name to roll, poll, thread, pin or restructure: only a turn that can call the
  // skills answers (an emoji cannot act), unless the budget leaves no model to act with.
  const spent = ctx.budgetFraction !== undefined && ctx.budgetFraction < BUDGET_EXHAUSTED;
  if (ctx.mentioned && !posts(d) && !spent) {
    const f = featuresOf(ctx);
    if (f.asksAction) return 'asked-to-act';
    // Asked by name what memory holds ("do you remember …"): an emoji does not answer it.
    if (asksMemory(f)) return 'asked-to-recall';
    // Asked a question by name: an emoji does not answer it either.
    if (f.asks === true) return 'asked-a-question';
  }
  if (ctx.interruption?.action === 'fold' && !posts(d)) return 'fold';
  if (!ctx.mentioned && posts(d)) {
    if (ctx.features?.addressedToOther) return 'addressed-to-other';
    if ((ctx.room?.botRun ?? 0) >= MAX_BOT_RUN) return 'bot-run';
  }
  if (d.speculativeOnly && ctx.trigger !== 'speculative') return 'speculative-only';
  if (ctx.trigger === 'speculative' && !d.speculativeOnly && !silent) return 'not-speculative';
  if (!silent && ctx.agent.neverVoices?.includes(d.voice)) return 'never-voice';
  const voices = ctx.agent.voices;
  if (!silent && voices?.length && !voices.includes(d.voice)) return 'voice';
  if (ctx.budgetFraction !== undefined && ctx.budgetFraction < BUDGET_EXHAUSTED && !isModelFree(d))
    return 'budget';
  return null;
}

function signalBoost(d: Disposition, ctx: RouteContext, f: MessageFeatures): number {
  let b = 1;
  if (ctx.mentioned && (d.outputShape === 'single-line' || d.outputShape === 'multi-line')) b *= 2;
  if (ctx.mentioned && d.outputShape === 'react-only') b *= 0.3;
  if (!ctx.mentioned && ctx.trigger === 'reactive' && d.outputShape === 'silent') b *= 3;
  if (f.authorIsBot && d.outputShape === 'silent') b *= 2;
  if (f.question && (d.voice === 'deadpan' || d.voice === 'fact-drop')) b *= 2;
  if (f.debate && d.searchPosture === 'contradiction-hunt') b *= 2;
  if (f.banter && (d.voice === 'sharp' || d.voice === 'playful')) b *= 1.8;
  if (f.length > 240 && (d.outputShape === 'multi-line' || d.outputShape === 'burst')) b *= 1.3;
  if (f.length > 0 && f.length < 24 && d.reasoningDepth === 'low') b *= 1.5;
  if (d.searchPosture === 'callback-hunt') b *= memoryBoost(f, ctx.memory);
  return b * roomBoost(d, ctx) * hourBoost(d, ctx.hour);
}

/** A callback needs material: memory's hits, not the word "remember", decide. */
function memoryBoost(f: MessageFeatures, memory: MemorySignals | undefined): number {
  if (!memory) return f.callback ? 1.5 : 1;
  if (memory.hits === 0) return 0.4;
  return f.callback ? 2.5 : 1.3;
}

/** A busy channel wants less said; bots that already spoke leave the floor to people. */
function roomBoost(d: Disposition, ctx: RouteContext): number {
  const room = ctx.room;
  if (!room) return 1;
  let b = 1;
  const long = d.outputShape === 'multi-line' || d.outputShape === 'burst';
  if (room.ratePerMin >= 8 && !ctx.mentioned) {
    if (d.outputShape === 'silent') b *= 1.5;
    if (d.outputShape === 'react-only') b *= 1.3;
    if (long) b *= 0.6;
  }
  if (room.ratePerMin < 1 && room.humansActive > 0 && long) b *= 1.2;
  if (room.humansActive >= GROUP_HUMANS && d.searchPosture === 'person-deep') b *= 1.3;
  if (room.botRun > 0 && posts(d) && !ctx.mentioned) {
    b /= 1 + room.botRun;
    if (d.outputShape === 'burst') b *= 0.3;
  }
  return b;
}

/** Late at night the observational and nostalgic voices fit. */
function hourBoost(d: Disposition, hour: number | undefined): number {
  if (hour === undefined || hour >= 5) return 1;
  return d.voice === 'observational' || d.voice === 'nostalgic' ? 1.4 : 1;
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
  const f = featuresOf(ctx);
  return dispositions.map((d) => {
    if (gate(d, ctx)) return { dispositionId: d.id, score: 0 };
    const weight = (d.weight ?? 1) * (ctx.agent.weights?.[d.id] ?? 1);
    const score =
      weight * signalBoost(d, ctx, f) * biasBoost(d, ctx.bias) * budgetClamp(d, ctx.budgetFraction);
    return { dispositionId: d.id, score: Math.round(score * 1e6) / 1e6 };
  });
}
