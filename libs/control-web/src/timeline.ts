import type { ChannelEvent } from '@dirigent/turn-domain';

/** One commit of a channel aggregate as stored: when, and the events it holds. */
export interface TimelineCommit {
  at: string;
  events: readonly ChannelEvent[];
}

/** What the control page draws on a channel's turn timeline. */
export type TimelineItem =
  | { kind: 'granted'; at: string; agentId: string; turnId: string; cycle: number; reason: string }
  | { kind: 'completed'; at: string; agentId: string; turnId: string; outcome: 'empty' | 'real' }
  | { kind: 'delivered'; at: string; agentId: string; turnId: string; afterMs: number | null }
  | { kind: 'timeout'; at: string; agentId: string; turnId: string; timeoutMs: number }
  | { kind: 'cancelled'; at: string; agentId: string; turnId: string; reason: string }
  | { kind: 'dormant'; at: string; reason: 'start' | 'unanimous-empty' }
  | { kind: 'loop-breaker'; at: string; cyclesWithoutHuman: number }
  | { kind: 'woke'; at: string; by: string }
  | { kind: 'mode'; at: string; from: string; to: string };

export type TimelineKind = TimelineItem['kind'];

/**
 * The turn timeline of a channel out of its stored commits: grants, completions (empty or
 * real), delivery confirmation with its delay after completion, timeouts, dormancy, wakes
 * and loop-breaker trips. Pure; the newest `limit` items are kept.
 *
 * @example
 * buildTimeline([{ at: '2026-01-01T00:00:00Z', events: [{ type: 'Woke', data: { byMessageId: '1', authorKind: 'human' } }] }]);
 * // [{ kind: 'woke', at: '2026-01-01T00:00:00Z', by: 'human' }]
 */
export function buildTimeline(commits: readonly TimelineCommit[], limit = 200): TimelineItem[] {
  const out: TimelineItem[] = [];
  const completedAt = new Map<string, number>();
  for (const { at, events } of commits) {
    for (const e of events) {
      const item = toItem(e, at, completedAt);
      if (item) out.push(item);
    }
  }
  return out.slice(-limit);
}

function toItem(
  e: ChannelEvent,
  at: string,
  completedAt: Map<string, number>,
): TimelineItem | null {
  switch (e.type) {
    case 'TurnGranted':
      return {
        kind: 'granted',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        cycle: e.data.cycle,
        reason: e.data.reason,
      };
    case 'TurnCompleted':
      completedAt.set(e.data.turnId, Date.parse(at));
      return {
        kind: 'completed',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        outcome: e.data.outcome,
      };
    case 'DeliveryConfirmed': {
      const done = completedAt.get(e.data.turnId);
      return {
        kind: 'delivered',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        afterMs: done === undefined ? null : Math.max(0, Date.parse(at) - done),
      };
    }
    case 'DeliveryTimedOut':
      return {
        kind: 'timeout',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        timeoutMs: e.data.timeoutMs,
      };
    case 'DeliveryWaitCancelled':
      return {
        kind: 'cancelled',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        reason: `${e.data.authorKind} spoke`,
      };
    case 'TurnCancelled':
      return {
        kind: 'cancelled',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        reason: e.data.reason,
      };
    case 'TurnSkipped':
      return {
        kind: 'cancelled',
        at,
        agentId: e.data.agentId,
        turnId: e.data.turnId,
        reason: e.data.reason,
      };
    case 'WentDormant':
      return e.data.reason === 'loop-breaker'
        ? { kind: 'loop-breaker', at, cyclesWithoutHuman: e.data.cyclesWithoutHuman }
        : { kind: 'dormant', at, reason: e.data.reason };
    case 'Woke':
      return { kind: 'woke', at, by: e.data.authorKind };
    case 'ModeSet':
      return { kind: 'mode', at, from: e.data.from, to: e.data.to };
    case 'ChannelCreated':
      return { kind: 'mode', at, from: 'none', to: e.data.mode };
    case 'DiscussionCreated':
    case 'ShuffleOverrideSet':
    case 'WakeModeSet':
    case 'MembersRefreshed':
    case 'SpeakerListRebuilt':
    case 'TurnAnchorRecorded':
    case 'DeliveryWaitStarted':
    case 'CycleCompleted':
    case 'MessageSeen':
    case 'MultiMessageStarted':
    case 'MultiMessageEnded':
    case 'DiscussionArchived':
    case 'TypingHoldStarted':
    case 'TypingHoldEnded':
    case 'GrantHeld':
      return null;
    default: {
      const never: never = e;
      return never;
    }
  }
}
