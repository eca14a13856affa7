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

/** The composite predicate: quiet, no recent bot turn, a recent human, budget, then chance. */
export function speculativeDue(
  a: ChannelActivity,
  s: SpeculativeSettings,
  ctx: { now: number; budgetFraction: number | undefined; seed: string },
): SpeculativeVerdict {
  if (!s.enabled) return { fire: false, reason: 'disabled' };
  const last = a.lastMessageAt ?? a.lastHumanAt;
  if (last !== undefined && ctx.now - last < s.quietMs) return { fire: false, reason: 'not-quiet' };
  if (a.lastBotTurnAt !== undefined && ctx.now - a.lastBotTurnAt < s.minSinceBotTurnMs)
    return { fire: false, reason: 'bot-spoke' };
  if (a.lastHumanAt === undefined || ctx.now - a.lastHumanAt > s.activeWithinMs)
    return { fire: false, reason: 'inactive' };
  if (ctx.budgetFraction === undefined || ctx.budgetFraction < s.minBudgetFraction)
    return { fire: false, reason: 'budget' };
  if (!(seededRandom(ctx.seed, 'speculative')() < s.chance))
    return { fire: false, reason: 'chance' };
  return { fire: true };
}
