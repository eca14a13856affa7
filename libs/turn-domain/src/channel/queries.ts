import { compareSnowflakes } from '@dirigent/contracts';
import { isConversational, isRotating } from './rules';
import type {
  AgentRef,
  ChannelMode,
  ChannelState,
  DormantReason,
  TmState,
  WakeMode,
} from './types';

export type CheckTurnReason =
  | 'turn-manager-disabled'
  | 'current-speaker'
  | 'discussion-initiator'
  | 'channel-dead'
  | 'channel-archived'
  | 'multi-message'
  | 'dormant'
  | 'awaiting-delivery'
  | 'not-current-speaker';

/** The check-turn reply body (`Subjects.turn.check`) (plus why, for logs and the control page). */
export interface CheckTurnResult {
  readonly allowed: boolean;
  readonly currentSpeaker: string | null;
  readonly tmState: TmState;
  readonly mode: ChannelMode;
  readonly dormant: boolean;
  readonly multiMessage: boolean;
  readonly turnId: string | null;
  readonly reason: CheckTurnReason;
}

/** The agent holding the turn, or null (dormant, idle, or no rotation). */
export function currentSpeaker(state: ChannelState): string | null {
  return state.currentTurn?.agentId ?? null;
}

/**
 * Answers check-turn. Precedence: archived > dead > multi-message > disabled > rotation.
 * While a discussion rests, its initiator is let through so it can write the summary the
 * reminder asks for.
 *
 * @example
 * const { allowed } = evaluateCheckTurn(state, 'alice');
 * if (allowed) runModel(); else routeToNoReply();
 */
export function evaluateCheckTurn(state: ChannelState, agentId: string): CheckTurnResult {
  const turn = state.currentTurn;
  const answer = (allowed: boolean, reason: CheckTurnReason): CheckTurnResult => ({
    allowed,
    currentSpeaker: turn?.agentId ?? null,
    tmState: state.tmState,
    mode: state.mode,
    dormant: state.dormant,
    multiMessage: state.multiMessage,
    turnId: allowed && turn?.agentId === agentId ? turn.turnId : null,
    reason,
  });
  switch (state.tmState) {
    case 'archived':
      return answer(false, 'channel-archived');
    case 'dead':
      return answer(false, 'channel-dead');
    case 'disabled':
    case 'normal':
    case 'shuffle':
      break;
    default: {
      const unreachable: never = state.tmState;
      return unreachable;
    }
  }
  if (state.multiMessage && isConversational(state.mode)) return answer(false, 'multi-message');
  if (!isRotating(state.tmState)) return answer(true, 'turn-manager-disabled');
  if (turn?.agentId === agentId) {
    return turn.phase === 'running'
      ? answer(true, 'current-speaker')
      : answer(false, 'awaiting-delivery');
  }
  if (state.dormant) {
    const d = state.discussion;
    if (d?.status === 'open' && d.initiatorAgentId === agentId && state.dormantReason !== 'start') {
      return answer(true, 'discussion-initiator');
    }
    return answer(false, 'dormant');
  }
  return answer(false, 'not-current-speaker');
}

/**
 * Whether check-turn may answer for `messageId` now (causal consistency): true once the
 * channel has processed that message, or always for channels that do not track messages.
 */
export function hasSeenMessage(state: ChannelState, messageId: string): boolean {
  if (!isConversational(state.mode)) return true;
  return state.lastMessageId !== null && compareSnowflakes(state.lastMessageId, messageId) >= 0;
}

/** The admin `channel.get` view and the control page projection. */
export interface ChannelView {
  readonly channelId: string;
  readonly guildId: string | null;
  readonly mode: ChannelMode;
  readonly tmState: TmState;
  readonly currentSpeaker: string | null;
  readonly turnId: string | null;
  readonly awaitingDelivery: boolean;
  readonly speakers: string[];
  readonly members: AgentRef[];
  readonly cycle: number;
  readonly dormant: boolean;
  readonly dormantReason: DormantReason | null;
  readonly multiMessage: boolean;
  readonly shuffle: boolean | null;
  readonly wakeMode: WakeMode;
  readonly discussion: {
    readonly initiatorAgentId: string;
    readonly callbackGuildId: string;
    readonly callbackChannelId: string;
    readonly participants: string[];
    readonly status: 'open' | 'archived';
    readonly summaryPath: string | null;
  } | null;
}

export function describeChannel(state: ChannelState): ChannelView {
  const d = state.discussion;
  return {
    channelId: state.channelId,
    guildId: state.guildId,
    mode: state.mode,
    tmState: state.tmState,
    currentSpeaker: currentSpeaker(state),
    turnId: state.currentTurn?.turnId ?? null,
    awaitingDelivery: state.currentTurn?.phase === 'awaiting-delivery',
    speakers: state.speakers.map((s) => s.agentId),
    members: [...state.members],
    cycle: state.cycle,
    dormant: state.dormant,
    dormantReason: state.dormantReason,
    multiMessage: state.multiMessage,
    shuffle: state.shuffleOverride,
    wakeMode: state.wakeMode,
    discussion: d && {
      initiatorAgentId: d.initiatorAgentId,
      callbackGuildId: d.callbackGuildId,
      callbackChannelId: d.callbackChannelId,
      participants: [...d.participants],
      status: d.status,
      summaryPath: d.summaryPath,
    },
  };
}
