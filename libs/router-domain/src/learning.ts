import type {
  ContextClass,
  LearningStepOf,
  PersonaContent,
  RouterDecisionInputs,
  SignalKind,
} from '@dirigent/contracts';
import type { PersonaSignal } from './persona';
import { SIGNAL_STEP } from './learning-signals';

// Learning per community (docs/architecture.md, "Learning per community"): the persona's
// weights are the admin's baseline; learning keeps an adjustment per (guild, context class,
// disposition). Pure: time arrives as arguments, so the bench and the event replay run the
// same code as the router.

export {
  CONTEXT_CLASSES,
  SIGNAL_KINDS,
  type ContextClass,
  type SignalKind,
} from '@dirigent/contracts';

/**
 * The room's mood from what the router already reads: a debate or a rebuke-free fast room
 * with several people is `heated`; a fast room is `busy`; a near-silent one is a `lull`;
 * everything else is `casual`.
 *
 * @example
 * contextClass({ room: { ratePerMin: 0.2, humansActive: 1, botRun: 0 } }) // 'lull'
 */
export function contextClass(inputs: Pick<RouterDecisionInputs, 'room' | 'message'>): ContextClass {
  const rate = inputs.room?.ratePerMin ?? 0;
  const humans = inputs.room?.humansActive ?? 0;
  if (inputs.message?.debate && humans >= 2) return 'heated';
  if (rate >= 6 && humans >= 3) return 'busy';
  if (rate < 1 && humans <= 1) return 'lull';
  return 'casual';
}

type Learning = PersonaContent['learning'];
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The range an effective weight may take: the bounds, widened to the baseline when the
 * admin set it outside them (learning never pulls an admin weight in, nor pushes it out).
 */
export function weightRange(baseline: number, bounds: Learning['bounds']): [number, number] {
  return [Math.min(bounds[0], baseline), Math.max(bounds[1], baseline)];
}

/** Baseline + adjustment within `weightRange`. */
export function effectiveWeight(
  baseline: number,
  adjustment: number,
  bounds: Learning['bounds'],
): number {
  const [lo, hi] = weightRange(baseline, bounds);
  return round(Math.min(hi, Math.max(lo, baseline + adjustment)));
}

/**
 * The adjustment after one signal: ± `rate`, so the effective weight stays within
 * `weightRange` (a weight below the bounds moves up by one step after a 👍 and stays put
 * after a 👎). Returns the delta actually applied (0 when frozen or at the edge).
 */
export function stepAdjustment(
  baseline: number,
  adjustment: number,
  polarity: PersonaSignal,
  learning: Learning,
): { adjustment: number; delta: number } {
  if (!learning.enabled) return { adjustment, delta: 0 };
  const step = polarity === 'positive' ? learning.rate : -learning.rate;
  return moveAdjustment(baseline, adjustment, step, learning.bounds);
}

/** The adjustment moved by `delta` (a step or a withdrawal), kept within `weightRange`. */
export function moveAdjustment(
  baseline: number,
  adjustment: number,
  delta: number,
  bounds: Learning['bounds'],
): { adjustment: number; delta: number } {
  const [lo, hi] = weightRange(baseline, bounds);
  const to = round(Math.min(hi - baseline, Math.max(lo - baseline, adjustment + delta)));
  return { adjustment: to, delta: round(to - adjustment) };
}

/** An adjustment decayed toward 0 over `elapsedMs` with `halfLifeMs` (≤ 0: no decay). */
export function decayed(adjustment: number, elapsedMs: number, halfLifeMs: number): number {
  if (halfLifeMs <= 0 || elapsedMs <= 0 || adjustment === 0) return adjustment;
  const v = round(adjustment * Math.pow(0.5, elapsedMs / halfLifeMs));
  return Math.abs(v) < 1e-6 ? 0 : v;
}

/**
 * A member's signals on one message: the strongest counts (a rebuke or an engaged reply
 * over a reaction; among equals, the latest). The room's judgements (ignored, silent-ok,
 * silent-missed) are one per turn, by the room as its own member.
 */
export const SIGNAL_STRENGTH: Record<SignalKind, number> = {
  reaction: 1,
  ignored: 1,
  'silent-ok': 1,
  'silent-missed': 1,
  reply: 2,
  quote: 2,
  rebuke: 2,
};

/** Whether `next` replaces `current` as a member's one signal on a message. */
export const strongerSignal = (current: SignalKind | null, next: SignalKind) =>
  !current || SIGNAL_STRENGTH[next] >= SIGNAL_STRENGTH[current];

/** One step of learning, as `learning.adjusted` carries it (its time in epoch ms). */
export type LearningStep = LearningStepOf<number>;

/** The key of an adjustment within a guild and agent. */
export const adjustmentKey = (contextClass: string, dispositionId: string) =>
  `${contextClass}/${dispositionId}`;

/**
 * The adjustments rebuilt from their events, in order: each event carries the adjustment
 * it left, so the last one per (guild, agent, class, disposition) wins.
 */
export function foldSteps(
  steps: readonly LearningStep[],
): Map<string, { adjustment: number; at: number }> {
  const out = new Map<string, { adjustment: number; at: number }>();
  for (const s of steps)
    out.set(`${s.guildId}/${s.agentId}/${adjustmentKey(s.contextClass, s.dispositionId)}`, {
      adjustment: s.adjustment,
      at: s.at,
    });
  return out;
}

/**
 * The weights a decision in `cls` scores with: each baseline weight plus its adjustment
 * (dispositions only learning knows start at 1), sorted by id. Equal to the baseline when
 * nothing was learned, so decisions without learning are as before.
 */
export function effectiveWeights(
  baseline: Readonly<Record<string, number>>,
  adjustments: Readonly<Record<string, number>>,
  bounds: Learning['bounds'],
): Record<string, number> {
  const ids = [...new Set([...Object.keys(baseline), ...Object.keys(adjustments)])].sort();
  const out: Record<string, number> = {};
  for (const id of ids) {
    const adj = adjustments[id] ?? 0;
    if (adj === 0 && baseline[id] !== undefined) out[id] = baseline[id];
    else if (adj !== 0) out[id] = effectiveWeight(baseline[id] ?? 1, adj, bounds);
  }
  return out;
}

/** A member's one signal on a message, as kept. */
export interface MemberSignalState {
  kind: SignalKind;
  polarity: PersonaSignal;
  /** What it moved the adjustment by (0 when frozen, capped at an edge or withdrawn). */
  delta: number;
  /** The member's emojis on the message (a reaction signal lasts while one is left). */
  reactions: string[];
  withdrawn: boolean;
}

/** What a member did: gave a signal, or removed one of their reactions. */
export type MemberInput =
  | { type: 'add'; kind: SignalKind; polarity: PersonaSignal; emoji?: string }
  | { type: 'remove'; emoji: string };

/**
 * A member's input on a message against what they gave before: one signal per member per
 * message (the strongest; among equals the latest), each step `rate` times its kind's
 * `SIGNAL_STEP`, a removed last reaction withdraws its step, and a member over `dailyCap`
 * new signals today gives nothing. Returns the member's new state with the adjustment it
 * leaves, or null when nothing is to be kept.
 *
 * @example
 * memberSignal({ current: null, input: { type: 'add', kind: 'reaction', polarity: 'positive', emoji: '👍' },
 *   today: 0, dailyCap: 20, baseline: 1, adjustment: 0, learning }) // delta 0.05
 */
export function memberSignal(a: {
  current: MemberSignalState | null;
  input: MemberInput;
  today: number;
  dailyCap: number;
  baseline: number;
  /** The adjustment now (decayed). */
  adjustment: number;
  learning: Learning;
}): { row: MemberSignalState; adjustment: number; delta: number } | null {
  const { current: cur, input, baseline, learning } = a;
  const frozen = !learning.enabled;
  const move = (adjustment: number, delta: number) =>
    frozen
      ? { adjustment, delta: 0 }
      : moveAdjustment(baseline, adjustment, delta, learning.bounds);
  if (input.type === 'remove') {
    if (!cur || !cur.reactions.includes(input.emoji)) return null;
    const reactions = cur.reactions.filter((e) => e !== input.emoji);
    if (reactions.length || cur.kind !== 'reaction' || cur.withdrawn)
      return { row: { ...cur, reactions }, adjustment: a.adjustment, delta: 0 };
    const back = move(a.adjustment, -cur.delta);
    return {
      row: { ...cur, reactions, delta: 0, withdrawn: true },
      adjustment: back.adjustment,
      delta: back.delta,
    };
  }
  const reactions = (cur?.reactions ?? []).concat(
    input.emoji && !cur?.reactions.includes(input.emoji) ? [input.emoji] : [],
  );
  const live = cur && !cur.withdrawn ? cur : null;
  if (!cur && a.today >= a.dailyCap) return null;
  if (live && !strongerSignal(live.kind, input.kind))
    return { row: { ...live, reactions }, adjustment: a.adjustment, delta: 0 };
  if (live && live.polarity === input.polarity)
    return { row: { ...live, kind: input.kind, reactions }, adjustment: a.adjustment, delta: 0 };
  // A new signal, or one that overturns the member's earlier one: withdraw it, then step.
  const back = live ? move(a.adjustment, -live.delta) : { adjustment: a.adjustment, delta: 0 };
  const size = learning.rate * SIGNAL_STEP[input.kind];
  const step = move(back.adjustment, input.polarity === 'positive' ? size : -size);
  return {
    row: {
      kind: input.kind,
      polarity: input.polarity,
      delta: step.delta,
      reactions,
      withdrawn: false,
    },
    adjustment: step.adjustment,
    delta: round(back.delta + step.delta),
  };
}
