import { refuse } from '../shared/result';
import { compareSnowflakes, isAfter, snowflakeTime } from '../shared/snowflake';
import type {
  CheckTurn,
  CompleteTurn,
  ConfirmDelivery,
  DeliveryTimeout,
  ObserveMessage,
} from './commands';
import {
  classifyTurnText,
  containsMarker,
  contentTail,
  isConversational,
  isRotating,
  matchesTail,
  tailFingerprint,
} from './rules';
import type { AuthorKind, ChannelState, OpenTurn } from './types';

import {
  Draft,
  blank,
  badRequest,
  freshCycle,
  wake,
  advance,
  cancelOpenTurn,
  grant,
  mentionedSpeaker,
  nextMemberPosition,
  type Result,
} from './draft';

export function authorAgentId(s: ChannelState, m: ObserveMessage['data']): string | null {
  if (m.agentIdOfAuthor) return m.agentIdOfAuthor;
  return s.members.find((a) => a.discordUserId === m.authorId)?.agentId ?? null;
}

export function authorKindOf(m: ObserveMessage['data'], agentId: string | null): AuthorKind {
  if (m.isModerator) return 'moderator';
  if (m.isWebhook) return 'bot';
  if (agentId !== null) return 'agent';
  return m.authorIsBot ? 'bot' : 'human';
}

/**
 * A message sent before its turn was granted is never that turn's delivery: its snowflake
 * time must not precede the grant (when both are known).
 */
export function sentDuringTurn(messageId: string, turn: OpenTurn): boolean {
  if (!isAfter(messageId, turn.anchorMessageId)) return false;
  const sent = snowflakeTime(messageId);
  return turn.grantedAt === null || sent === null || sent >= turn.grantedAt;
}

export function observeMessage(cmd: ObserveMessage, d: Draft): Result {
  const m = cmd.data;
  if (blank(m.messageId)) return badRequest('messageId', 'messageId is required');
  if (typeof m.authorId !== 'string') return badRequest('authorId', 'authorId is required');
  const s = d.state;
  if (!isConversational(s.mode)) return d.done();
  const content = typeof m.content === 'string' ? m.content : '';
  const authorAgent = m.isWebhook ? null : authorAgentId(s, m);
  const kind = authorKindOf(m, authorAgent);
  // Unregistered bots and webhooks (feeds) are seen but move nothing, unless allow-listed.
  const inert = kind === 'bot' && !d.config.botAllowlist.includes(m.authorId);
  const turn = s.currentTurn;
  const fromSpeaker = turn !== null && m.authorId === turn.discordUserId;
  const seen = (reaction: 'none' | 'prompt-marker' | 'archived-notice'): void =>
    d.emit({
      type: 'MessageSeen',
      data: {
        messageId: m.messageId,
        authorId: m.authorId,
        authorKind: kind,
        agentId: kind === 'moderator' ? null : authorAgent,
        tail: fromSpeaker ? contentTail(content, d.config.tailFingerprintLen) : null,
        reaction,
        ...(reaction === 'archived-notice' && d.at !== null ? { at: d.at } : {}),
      },
    });
  // Discord ids grow within a channel: anything not newer is a redelivery — except the
  // speaker's reply coming after a newer message (handled again after a failure, or Discord
  // and the ingest delivering two authors' messages out of order): it still answers the turn.
  if (s.lastMessageId !== null && compareSnowflakes(m.messageId, s.lastMessageId) <= 0) {
    if (turn === null || !fromSpeaker || !lateOwnMessage(s, turn, m.messageId)) return d.done();
    seen('none');
    if (turn.phase === 'awaiting-delivery' && matchesTail(content, turn.tailFingerprint ?? '')) {
      d.emit({
        type: 'DeliveryConfirmed',
        data: { turnId: turn.turnId, agentId: turn.agentId, messageId: m.messageId },
      });
      advance(d);
    }
    return d.done();
  }

  // Precedence: archived > multi-message > delivery wait / dormant / rotation.
  if (s.tmState === 'archived') {
    const last = s.lastArchivedNoticeAt;
    const due = last === null || d.at === null || d.at - last >= d.config.archivedNoticeIntervalMs;
    seen(kind === 'moderator' || inert || !due ? 'none' : 'archived-notice');
    return d.done();
  }
  if (kind === 'moderator') {
    seen('none');
    return d.done();
  }
  const human = kind === 'human';
  if (s.multiMessage) {
    if (human && containsMarker(content, d.config.multiMessageEndMarker)) {
      seen('none');
      d.emit({ type: 'MultiMessageEnded', data: { byMessageId: m.messageId } });
      freshCycle(d, 'multi-message-end');
    } else {
      seen(human ? 'prompt-marker' : 'none');
    }
    return d.done();
  }
  if (human && containsMarker(content, d.config.multiMessageStartMarker)) {
    seen('none');
    cancelOpenTurn(d, 'multi-message');
    d.emit({ type: 'MultiMessageStarted', data: { byMessageId: m.messageId } });
    return d.done();
  }
  seen('none');
  if (!isRotating(s.tmState) || inert) return d.done();
  const mentioned = human ? mentionedSpeaker(s, m.mentions) : null;
  if (human && s.typingHold !== null && s.typingHold.userId === m.authorId) {
    const held = s.heldGrant;
    d.emit({ type: 'TypingHoldEnded', data: { reason: 'message' } });
    if (held !== null && turn === null) {
      if (mentioned !== null) freshCycle(d, held.reason, mentioned);
      else {
        const p = nextMemberPosition(d.state, held.position);
        if (p >= 0) grant(d, p, held.cycle, held.reason);
        else freshCycle(d, held.reason);
      }
      return d.done();
    }
  }

  if (turn?.phase === 'awaiting-delivery') {
    if (fromSpeaker) {
      if (sentDuringTurn(m.messageId, turn) && matchesTail(content, turn.tailFingerprint ?? '')) {
        d.emit({
          type: 'DeliveryConfirmed',
          data: { turnId: turn.turnId, agentId: turn.agentId, messageId: m.messageId },
        });
        advance(d);
      }
      return d.done();
    }
    d.emit({
      type: 'DeliveryWaitCancelled',
      data: {
        turnId: turn.turnId,
        agentId: turn.agentId,
        byMessageId: m.messageId,
        authorKind: kind,
      },
    });
    d.emit({ type: 'Woke', data: { byMessageId: m.messageId, authorKind: kind } });
    freshCycle(d, 'wake', mentioned);
    return d.done();
  }
  if (turn !== null || d.state.heldGrant !== null) return d.done();
  // After the loop breaker only a person may restart the channel, or the bots would resume.
  if (s.dormantReason === 'loop-breaker' && !human) return d.done();
  wake(d, m.messageId, kind, mentioned);
  return d.done();
}

/**
 * An older message of the speaker that is still this turn's (sent after its grant and newer
 * than the last one of its own seen) in a rotating channel: a late reply, not a redelivery.
 */
function lateOwnMessage(s: ChannelState, turn: OpenTurn, messageId: string): boolean {
  if (!isRotating(s.tmState) || s.multiMessage || !sentDuringTurn(messageId, turn)) return false;
  const own = turn.lastOwnMessage;
  return own === null || compareSnowflakes(messageId, own.messageId) > 0;
}

export function checkTurn(cmd: CheckTurn, d: Draft): Result {
  if (blank(cmd.data.agentId)) return badRequest('agentId', 'agentId is required');
  const s = d.state;
  const turn = s.currentTurn;
  if (
    turn === null ||
    turn.agentId !== cmd.data.agentId ||
    turn.phase !== 'running' ||
    turn.anchorChecked
  ) {
    return d.done();
  }
  d.emit({
    type: 'TurnAnchorRecorded',
    data: {
      turnId: turn.turnId,
      agentId: turn.agentId,
      anchorMessageId: replyAfterCheck(turn, d.at) ? turn.anchorMessageId : s.lastMessageId,
    },
  });
  return d.done();
}

/**
 * The speaker's reply can be seen before its check is decided (the check queued behind it on
 * a restarted or another replica). A reply sent after the check arrived (`at`, fixed when the
 * request came in) is this run's: the anchor stays where the grant put it, or that reply
 * would count as older than the check and never confirm the turn.
 */
function replyAfterCheck(turn: OpenTurn, at: number | null): boolean {
  const own = turn.lastOwnMessage;
  if (own === null || at === null || !sentDuringTurn(own.messageId, turn)) return false;
  const sent = snowflakeTime(own.messageId);
  return sent !== null && sent >= at;
}

export function completeTurn(cmd: CompleteTurn, d: Draft): Result {
  const { agentId, runId, text } = cmd.data;
  if (blank(agentId)) return badRequest('agentId', 'agentId is required');
  if (blank(runId)) return badRequest('runId', 'runId is required');
  const s = d.state;
  if (!isConversational(s.mode) || !isRotating(s.tmState)) return d.done();
  if (s.recentRunIds.includes(runId)) return d.done();
  const turn = s.currentTurn;
  if (turn !== null && turn.agentId === agentId && turn.phase === 'awaiting-delivery') {
    return d.done();
  }
  if (turn !== null && cmd.data.turnId && cmd.data.turnId !== turn.turnId) return d.done();
  // Without a turnId, a completion published before this grant is a stale run's.
  const publishedAt = cmd.data.publishedAt;
  if (
    turn !== null &&
    !cmd.data.turnId &&
    typeof publishedAt === 'number' &&
    turn.grantedAt !== null &&
    publishedAt < turn.grantedAt
  ) {
    return d.done();
  }
  if (turn === null || turn.agentId !== agentId) {
    return refuse('NOT_CURRENT_SPEAKER', `${agentId} does not hold the turn`, {
      currentSpeaker: turn?.agentId ?? null,
    });
  }
  const body = typeof text === 'string' ? text : '';
  if (classifyTurnText(body) === 'empty') {
    d.emit({
      type: 'TurnCompleted',
      data: { turnId: turn.turnId, agentId, runId, outcome: 'empty', tailFingerprint: null },
    });
    advance(d);
    return d.done();
  }
  const fingerprint = tailFingerprint(body, d.config.tailFingerprintLen);
  d.emit({
    type: 'TurnCompleted',
    data: { turnId: turn.turnId, agentId, runId, outcome: 'real', tailFingerprint: fingerprint },
  });
  const own = turn.lastOwnMessage;
  if (own && sentDuringTurn(own.messageId, turn) && matchesTail(own.tail, fingerprint)) {
    d.emit({
      type: 'DeliveryConfirmed',
      data: { turnId: turn.turnId, agentId, messageId: own.messageId },
    });
    advance(d);
    return d.done();
  }
  d.emit({
    type: 'DeliveryWaitStarted',
    data: {
      turnId: turn.turnId,
      agentId,
      discordUserId: turn.discordUserId,
      anchorMessageId: turn.anchorMessageId,
      tailFingerprint: fingerprint,
      timeoutMs: d.config.deliveryTimeoutMs,
    },
  });
  return d.done();
}

export function confirmDelivery(cmd: ConfirmDelivery, d: Draft): Result {
  const turn = d.state.currentTurn;
  if (turn?.phase !== 'awaiting-delivery' || turn.turnId !== cmd.data.turnId) return d.done();
  if (blank(cmd.data.messageId)) return badRequest('messageId', 'messageId is required');
  if (!sentDuringTurn(cmd.data.messageId, turn)) return d.done();
  d.emit({
    type: 'DeliveryConfirmed',
    data: { turnId: turn.turnId, agentId: turn.agentId, messageId: cmd.data.messageId },
  });
  advance(d);
  return d.done();
}

export function deliveryTimeout(cmd: DeliveryTimeout, d: Draft): Result {
  const turn = d.state.currentTurn;
  if (turn?.phase !== 'awaiting-delivery' || turn.turnId !== cmd.data.turnId) return d.done();
  d.emit({
    type: 'DeliveryTimedOut',
    data: { turnId: turn.turnId, agentId: turn.agentId, timeoutMs: d.config.deliveryTimeoutMs },
  });
  advance(d);
  return d.done();
}
