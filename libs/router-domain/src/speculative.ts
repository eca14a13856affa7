import { all, evaluate, predicate, type Trigger } from '@dirigent/reactor';
import { seededRandom } from './seeded';

export interface SpeculativeSettings {
  enabled: boolean;
  /** The channel has been quiet this long. */
  quietMs: number;
  /** No bot turn in the channel for this long. */
  minSinceBotTurnMs: number;
  /** A human spoke in the channel within this window. */
  activeWithinMs: number;
  /** Remaining fraction of the daily budget needed. */
  minBudgetFraction: number;
  /** Seeded chance once everything else holds. */
  chance: number;
}

export const DEFAULT_SPECULATIVE: SpeculativeSettings = {
  enabled: true,
  quietMs: 1_800_000,
  minSinceBotTurnMs: 3_600_000,
  activeWithinMs: 86_400_000,
  minBudgetFraction: 0.3,
  chance: 0.2,
};

/** What the reactor knows of a channel (epoch ms). */
export interface ChannelActivity {
  lastMessageAt?: number;
  lastHumanAt?: number;
  lastBotTurnAt?: number;
}

/**
 * When the composite trigger should next be evaluated: once the channel has been quiet
 * `quietMs` and the last bot turn is `minSinceBotTurnMs` old. Re-armed by every event.
 */
export function speculativeCheckAt(a: ChannelActivity, s: SpeculativeSettings): number | null {
  if (!s.enabled || a.lastHumanAt === undefined) return null;
  const quiet = (a.lastMessageAt ?? a.lastHumanAt) + s.quietMs;
  const sinceBot = a.lastBotTurnAt !== undefined ? a.lastBotTurnAt + s.minSinceBotTurnMs : 0;
  return Math.max(quiet, sinceBot);
}

export type SpeculativeVerdict =
  | { fire: true }
  | {
      fire: false;
      reason: 'disabled' | 'not-quiet' | 'bot-spoke' | 'inactive' | 'budget' | 'chance';
    };

/** What the speculative conditions read when the channel's timer fires. */
export interface SpeculativeSnapshot {
  activity: ChannelActivity;
  now: number;
  budgetFraction: number | undefined;
  seed: string;
}

/**
 * The composite's conditions, in order: enabled, quiet, no recent bot turn, a recent human,
 * budget, then the seeded chance. The router adds the durable timer that is re-armed by
 * every message (`speculativeCheckAt`).
 */
export function speculativeConditions(s: SpeculativeSettings): Trigger<SpeculativeSnapshot> {
  return all<SpeculativeSnapshot>(
    predicate('enabled', () => s.enabled),
    predicate('quiet', ({ activity: a, now }) => {
      const last = a.lastMessageAt ?? a.lastHumanAt;
      return last === undefined || now - last >= s.quietMs;
    }),
    predicate(
      'no-bot-turn',
      ({ activity: a, now }) =>
        a.lastBotTurnAt === undefined || now - a.lastBotTurnAt >= s.minSinceBotTurnMs,
    ),
    predicate(
      'human-within',
      ({ activity: a, now }) =>
        a.lastHumanAt !== undefined && now - a.lastHumanAt <= s.activeWithinMs,
    ),
    predicate(
      'budget',
      ({ budgetFraction }) => budgetFraction !== undefined && budgetFraction >= s.minBudgetFraction,
    ),
    predicate('chance', ({ seed }) => seededRandom(seed, 'speculative')() < s.chance),
  );
}

const UNMET = {
  enabled: 'disabled',
  quiet: 'not-quiet',
  'no-bot-turn': 'bot-spoke',
  'human-within': 'inactive',
  budget: 'budget',
  chance: 'chance',
} as const;

/** The composite predicate: quiet, no recent bot turn, a recent human, budget, then chance. */
export function speculativeDue(
  a: ChannelActivity,
  s: SpeculativeSettings,
  ctx: { now: number; budgetFraction: number | undefined; seed: string },
): SpeculativeVerdict {
  const v = evaluate(speculativeConditions(s), { activity: a, ...ctx });
  return v.fire ? { fire: true } : { fire: false, reason: UNMET[v.reason as keyof typeof UNMET] };
}
