import type { FollowupBias, SelfFollowupHint, Trigger } from './dimensions';
import { seededRandom } from './seeded';

export interface FollowupPlan {
  bias: FollowupBias;
  /** Epoch ms. */
  dueAt: number;
}

/**
 * After a turn: a seeded roll against the hint's probability and, when it lands, a due time
 * sampled uniformly in the window. A self-follow-up never schedules another.
 */
export function rollFollowup(
  hint: SelfFollowupHint | undefined,
  ctx: { seed: string; now: number; trigger: Trigger },
): FollowupPlan | null {
  if (!hint || ctx.trigger === 'self-followup') return null;
  const rnd = seededRandom(ctx.seed, 'followup');
  if (!(rnd() < hint.probability)) return null;
  const [min, max] = hint.windowMs;
  const lo = Math.max(0, Math.min(min, max));
  const hi = Math.max(min, max, 0);
  return { bias: hint.bias, dueAt: ctx.now + Math.round(lo + rnd() * (hi - lo)) };
}

/** A channel message seen after the turn the follow-up belongs to. */
export interface LaterMessage {
  authorId: string;
  authorIsBot: boolean;
  /** Epoch ms. */
  at: number;
  replyToMessageId?: string;
  mentions?: readonly string[];
}

export interface FollowupAbortInput {
  /** The bot's messages of the parent turn. */
  botMessageIds: readonly string[];
  agentUserId?: string;
  since: readonly LaterMessage[];
  /** Epoch ms of the last `typing.started` by someone else, if any. */
  othersTypingAt?: number;
  now: number;
  /** Human messages after which the conversation has moved on. */
  movedOnAfter?: number;
  /** A `callback-later` follow-up is meant for after the talk moved on: that rule is not its. */
  bias?: FollowupBias;
  /** A human message or typing this recent means someone is mid-thought. */
  midThoughtMs?: number;
}

export type FollowupAbortReason = 'human-replied' | 'moved-on' | 'mid-thought';

/** Why a due follow-up should not speak, or null when it may route again. */
export function followupAbortReason(i: FollowupAbortInput): FollowupAbortReason | null {
  const humans = i.since.filter((m) => !m.authorIsBot);
  const replied = humans.some(
    (m) =>
      (m.replyToMessageId !== undefined && i.botMessageIds.includes(m.replyToMessageId)) ||
      (i.agentUserId !== undefined && (m.mentions ?? []).includes(i.agentUserId)),
  );
  if (replied) return 'human-replied';
  if (i.bias !== 'callback-later' && humans.length >= (i.movedOnAfter ?? 6)) return 'moved-on';
  const midThought = i.midThoughtMs ?? 20_000;
  const lastHuman = humans.length ? Math.max(...humans.map((m) => m.at)) : -Infinity;
  const lastTyping = i.othersTypingAt ?? -Infinity;
  if (i.now - Math.max(lastHuman, lastTyping) < midThought) return 'mid-thought';
  return null;
}
