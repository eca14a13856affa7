import { refuse } from '../shared/result';
import { compareSnowflakes } from '@dirigent/contracts';
import { isAfter, snowflakeTime } from '../shared/snowflake';
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

/** One observed message, classified once: what the steps of `observeMessage` read. */
interface Observed {
  readonly m: ObserveMessage['data'];
  readonly content: string;
  readonly kind: AuthorKind;
  readonly authorAgent: string | null;
  readonly human: boolean;
  /** Unregistered bots and webhooks (feeds) are seen but move nothing, unless allow-listed. */
  readonly inert: boolean;
  readonly turn: OpenTurn | null;
  readonly fromSpeaker: boolean;
}

function observed(m: ObserveMessage['data'], d: Draft): Observed {
  const s = d.state;
  const authorAgent = m.isWebhook ? null : authorAgentId(s, m);
  const kind = authorKindOf(m, authorAgent);
  const turn = s.currentTurn;
  return {
    m,
    content: typeof m.content === 'string' ? m.content : '',
    kind,
    authorAgent,
    human: kind === 'human',
    inert: kind === 'bot' && !d.config.botAllowlist.includes(m.authorId),
    turn,
    fromSpeaker: turn !== null && m.authorId === turn.discordUserId,
  };
}

function seen(d: Draft, o: Observed, reaction: 'none' | 'prompt-marker' | 'archived-notice') {
  d.emit({
    type: 'MessageSeen',
    data: {
      messageId: o.m.messageId,
      authorId: o.m.authorId,
      authorKind: o.kind,
      agentId: o.kind === 'moderator' ? null : o.authorAgent,
      tail: o.fromSpeaker ? contentTail(o.content, d.config.tailFingerprintLen) : null,
      reaction,
      ...(reaction === 'archived-notice' && d.at !== null ? { at: d.at } : {}),
    },
  });
}

/** The speaker's message ends its delivery wait when it carries the reply's tail. */
function confirmIfDelivered(d: Draft, o: Observed, turn: OpenTurn): void {
  if (turn.phase !== 'awaiting-delivery' || !matchesTail(o.content, turn.tailFingerprint ?? '')) {
    return;
  }
  d.emit({
    type: 'DeliveryConfirmed',
    data: { turnId: turn.turnId, agentId: turn.agentId, messageId: o.m.messageId },
  });
  advance(d);
}

/**
 * A message not newer than the last one seen: a redelivery — except the speaker's reply
 * coming after a newer message (handled again after a failure, or Discord and the ingest
 * delivering two authors' messages out of order): it still answers the turn.
 */
function observeOlder(d: Draft, o: Observed): Result {
  const turn = o.turn;
  if (turn === null || !o.fromSpeaker || !lateOwnMessage(d.state, turn, o.m.messageId)) {
    return d.done();
  }
  seen(d, o, 'none');
  confirmIfDelivered(d, o, turn);
  return d.done();
}

/** An archived channel answers people with a notice, at most once per interval. */
function observeArchived(d: Draft, o: Observed): Result {
  const last = d.state.lastArchivedNoticeAt;
  const due = last === null || d.at === null || d.at - last >= d.config.archivedNoticeIntervalMs;
  seen(d, o, o.kind === 'moderator' || o.inert || !due ? 'none' : 'archived-notice');
  return d.done();
}

/** In multi-message mode a person's end marker starts a fresh cycle; others are prompted. */
function observeMultiMessage(d: Draft, o: Observed): Result {
  if (o.human && containsMarker(o.content, d.config.multiMessageEndMarker)) {
    seen(d, o, 'none');
    d.emit({ type: 'MultiMessageEnded', data: { byMessageId: o.m.messageId } });
    freshCycle(d, 'multi-message-end');
  } else {
    seen(d, o, o.human ? 'prompt-marker' : 'none');
  }
  return d.done();
}

/** The typing person posted: the grant they held goes out (to whom they named, if any). */
function releaseTypingHold(
  d: Draft,
  held: ChannelState['heldGrant'],
  turn: OpenTurn | null,
  mentioned: string | null,
): boolean {
  d.emit({ type: 'TypingHoldEnded', data: { reason: 'message' } });
  if (held === null || turn !== null) return false;
  if (mentioned !== null) freshCycle(d, held.reason, mentioned);
  else {
    const p = nextMemberPosition(d.state, held.position);
    if (p >= 0) grant(d, p, held.cycle, held.reason);
    else freshCycle(d, held.reason);
  }
  return true;
}

/**
 * During a delivery wait the speaker's message may confirm it; anyone else's interrupts it.
 * The seed's rule: an interrupted wait is a wake from dormant, so the first agent of the
 * speaker list (or the one a human named) takes the floor.
 */
function observeDuringDelivery(
  d: Draft,
  o: Observed,
  turn: OpenTurn,
  mentioned: string | null,
): Result {
  if (o.fromSpeaker) {
    if (sentDuringTurn(o.m.messageId, turn)) confirmIfDelivered(d, o, turn);
    return d.done();
  }
  d.emit({
    type: 'DeliveryWaitCancelled',
    data: {
      turnId: turn.turnId,
      agentId: turn.agentId,
      byMessageId: o.m.messageId,
      authorKind: o.kind,
    },
  });
  wake(d, o.m.messageId, o.kind, mentioned);
  return d.done();
}

export function observeMessage(cmd: ObserveMessage, d: Draft): Result {
  const m = cmd.data;
  if (blank(m.messageId)) return badRequest('messageId', 'messageId is required');
  if (typeof m.authorId !== 'string') return badRequest('authorId', 'authorId is required');
  const s = d.state;
  if (!isConversational(s.mode)) return d.done();
  const o = observed(m, d);
  // Discord ids grow within a channel: anything not newer is (almost always) a redelivery.
  if (s.lastMessageId !== null && compareSnowflakes(m.messageId, s.lastMessageId) <= 0) {
    return observeOlder(d, o);
  }
  // Precedence: archived > multi-message > delivery wait / dormant / rotation.
  if (s.tmState === 'archived') return observeArchived(d, o);
  if (o.kind === 'moderator') {
    seen(d, o, 'none');
    return d.done();
  }
  if (s.multiMessage) return observeMultiMessage(d, o);
  if (o.human && containsMarker(o.content, d.config.multiMessageStartMarker)) {
    seen(d, o, 'none');
    cancelOpenTurn(d, 'multi-message');
    d.emit({ type: 'MultiMessageStarted', data: { byMessageId: m.messageId } });
    return d.done();
  }
  seen(d, o, 'none');
  if (!isRotating(s.tmState) || o.inert) return d.done();
  const mentioned = o.human ? mentionedSpeaker(s, m.mentions) : null;
  if (o.human && s.typingHold !== null && s.typingHold.userId === m.authorId) {
    if (releaseTypingHold(d, s.heldGrant, o.turn, mentioned)) return d.done();
  }
  const turn = o.turn;
  if (turn?.phase === 'awaiting-delivery') return observeDuringDelivery(d, o, turn, mentioned);
  if (turn !== null || d.state.heldGrant !== null) return d.done();
  // After the loop breaker only a person may restart the channel, or the bots would resume.
  if (s.dormantReason === 'loop-breaker' && !o.human) return d.done();
  wake(d, m.messageId, o.kind, mentioned);
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
