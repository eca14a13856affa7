import { assertNever } from '../shared/result';
import { compareSnowflakes } from '@dirigent/contracts';
import type { ChannelEvent } from './events';
import { computeTmState, isConversational, isRotating } from './rules';
import type { ChannelState, OpenTurn } from './types';
import { RECENT_RUN_ID_LIMIT } from './types';

/**
 * The state of a channel nobody has configured: mode `none`, turn manager `disabled`.
 *
 * @example
 * const state = initialChannelState('1234567890');
 * state.mode; // 'none'
 */
export function initialChannelState(channelId: string): ChannelState {
  return {
    channelId,
    guildId: null,
    known: false,
    mode: 'none',
    tmState: 'disabled',
    shuffleOverride: null,
    wakeMode: 'both',
    members: [],
    speakers: [],
    cycle: 0,
    position: -1,
    turnSeq: 0,
    currentTurn: null,
    dormant: false,
    dormantReason: null,
    cycleOutcomes: [],
    lastSpeakerAgentId: null,
    humanSeenThisCycle: false,
    cyclesWithoutHuman: 0,
    multiMessage: false,
    lastMessageId: null,
    recentRunIds: [],
    discussion: null,
    lastArchivedNoticeAt: null,
    typingHold: null,
    heldGrant: null,
  };
}

function closeTurn(state: ChannelState, turnId: string): ChannelState {
  return state.currentTurn?.turnId === turnId ? { ...state, currentTurn: null } : state;
}

function patchTurn(state: ChannelState, turnId: string, patch: Partial<OpenTurn>): ChannelState {
  const turn = state.currentTurn;
  return turn?.turnId === turnId ? { ...state, currentTurn: { ...turn, ...patch } } : state;
}

/**
 * Applies one stored event. Total and pure: replaying a channel's stream from
 * `initialChannelState` rebuilds exactly the state the decider saw.
 *
 * @example
 * const state = events.reduce(evolveChannel, initialChannelState(channelId));
 */
// eslint-disable-next-line max-lines-per-function -- an exhaustive evolve switch, one case per event
export function evolveChannel(state: ChannelState, event: ChannelEvent): ChannelState {
  switch (event.type) {
    case 'ChannelCreated': {
      const { guildId, mode } = event.data;
      return {
        ...state,
        known: true,
        guildId,
        mode,
        tmState: computeTmState(mode, 0, state.shuffleOverride, false),
      };
    }
    case 'ModeSet': {
      const { guildId, to, tmState } = event.data;
      return {
        ...state,
        known: true,
        guildId,
        mode: to,
        tmState,
        speakers: isConversational(to) ? state.speakers : [],
        position: -1,
        currentTurn: null,
        dormant: false,
        dormantReason: null,
        cycleOutcomes: [],
        humanSeenThisCycle: false,
        cyclesWithoutHuman: 0,
        multiMessage: false,
        heldGrant: null,
      };
    }
    case 'DiscussionCreated':
      return {
        ...state,
        discussion: {
          ...event.data,
          participants: [...event.data.participants],
          status: 'open',
          summaryPath: null,
          summary: null,
        },
      };
    case 'ShuffleOverrideSet':
      return { ...state, shuffleOverride: event.data.shuffle };
    case 'WakeModeSet':
      return { ...state, wakeMode: event.data.wakeMode };
    case 'MembersRefreshed':
      return { ...state, members: event.data.members };
    case 'SpeakerListRebuilt': {
      const { speakers, tmState } = event.data;
      const rotating = isRotating(tmState);
      return {
        ...state,
        speakers,
        tmState,
        position: -1,
        currentTurn: rotating ? state.currentTurn : null,
        dormant: rotating ? state.dormant : false,
        dormantReason: rotating ? state.dormantReason : null,
      };
    }
    case 'TurnGranted': {
      const d = event.data;
      const newCycle = d.cycle !== state.cycle;
      return {
        ...state,
        turnSeq: state.turnSeq + 1,
        cycle: d.cycle,
        position: d.position,
        cycleOutcomes: newCycle ? [] : state.cycleOutcomes,
        humanSeenThisCycle: newCycle ? false : state.humanSeenThisCycle,
        dormant: false,
        dormantReason: null,
        heldGrant: null,
        currentTurn: {
          turnId: d.turnId,
          agentId: d.agentId,
          discordUserId: d.discordUserId,
          cycle: d.cycle,
          position: d.position,
          reason: d.reason,
          grantedAt: d.grantedAt ?? null,
          anchorMessageId: d.anchorMessageId,
          anchorChecked: false,
          phase: 'running',
          tailFingerprint: null,
          lastOwnMessage: null,
        },
      };
    }
    case 'TurnAnchorRecorded':
      return patchTurn(state, event.data.turnId, {
        anchorMessageId: event.data.anchorMessageId,
        anchorChecked: true,
      });
    case 'TurnCompleted': {
      const { turnId, agentId, runId, outcome } = event.data;
      const next: ChannelState = {
        ...state,
        cycleOutcomes: [...state.cycleOutcomes, { agentId, outcome }],
        lastSpeakerAgentId: agentId,
        recentRunIds: [...state.recentRunIds, runId].slice(-RECENT_RUN_ID_LIMIT),
      };
      return outcome === 'empty' ? closeTurn(next, turnId) : next;
    }
    case 'DeliveryWaitStarted':
      return patchTurn(state, event.data.turnId, {
        phase: 'awaiting-delivery',
        tailFingerprint: event.data.tailFingerprint,
        anchorMessageId: event.data.anchorMessageId,
      });
    case 'DeliveryConfirmed':
    case 'DeliveryTimedOut':
    case 'DeliveryWaitCancelled':
    case 'TurnSkipped':
    case 'TurnCancelled':
      return closeTurn(state, event.data.turnId);
    case 'CycleCompleted':
      return { ...state, cyclesWithoutHuman: event.data.cyclesWithoutHuman };
    case 'WentDormant':
      return {
        ...state,
        dormant: true,
        dormantReason: event.data.reason,
        currentTurn: null,
        position: -1,
        cycleOutcomes: [],
        heldGrant: null,
      };
    case 'Woke':
      return { ...state, dormant: false, dormantReason: null };
    case 'MessageSeen': {
      const d = event.data;
      const human = d.authorKind === 'human';
      const turn = state.currentTurn;
      const ownMessage = turn !== null && d.tail !== null && d.authorId === turn.discordUserId;
      return {
        ...state,
        lastMessageId:
          state.lastMessageId === null || compareSnowflakes(d.messageId, state.lastMessageId) > 0
            ? d.messageId
            : state.lastMessageId,
        humanSeenThisCycle: human ? true : state.humanSeenThisCycle,
        cyclesWithoutHuman: human ? 0 : state.cyclesWithoutHuman,
        lastArchivedNoticeAt:
          d.reaction === 'archived-notice' && d.at !== undefined
            ? d.at
            : state.lastArchivedNoticeAt,
        currentTurn: ownMessage
          ? { ...turn, lastOwnMessage: { messageId: d.messageId, tail: d.tail ?? '' } }
          : turn,
      };
    }
    case 'MultiMessageStarted':
      return { ...state, multiMessage: true };
    case 'MultiMessageEnded':
      return { ...state, multiMessage: false };
    case 'DiscussionArchived':
      return {
        ...state,
        tmState: 'archived',
        currentTurn: null,
        position: -1,
        dormant: false,
        dormantReason: null,
        multiMessage: false,
        heldGrant: null,
        typingHold: null,
        discussion: state.discussion && {
          ...state.discussion,
          status: 'archived',
          summaryPath: event.data.summaryPath,
          summary: event.data.summary ?? null,
        },
      };
    case 'TypingHoldStarted':
      return { ...state, typingHold: { userId: event.data.userId, until: event.data.until } };
    case 'TypingHoldEnded':
      return { ...state, typingHold: null, heldGrant: null };
    case 'GrantHeld': {
      const { position, cycle, reason } = event.data;
      return { ...state, heldGrant: { position, cycle, reason } };
    }
    default:
      return assertNever(event);
  }
}

/** Folds a stored stream into state. */
export function replayChannel(channelId: string, events: readonly ChannelEvent[]): ChannelState {
  return events.reduce(evolveChannel, initialChannelState(channelId));
}
