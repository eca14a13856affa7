import type { AdvanceTurn, SpeakerTimeout, TypingHoldExpired, TypingStarted } from './commands';
import { isConversational, isRotating } from './rules';
import type { ChannelState } from './types';

import {
  Draft,
  blank,
  badRequest,
  grant,
  nextMemberPosition,
  skipTurn,
  type Result,
} from './draft';

/** The granted speaker neither completed nor posted in time (its runtime may be gone). */
export function speakerTimeout(cmd: SpeakerTimeout, d: Draft): Result {
  const turn = d.state.currentTurn;
  if (turn?.turnId !== cmd.data.turnId || turn.phase !== 'running') return d.done();
  skipTurn(d, 'speaker-timeout');
  return d.done();
}

/** Admin "advance": the current speaker is skipped now; an idle channel grants its next one. */
export function advanceTurn(cmd: AdvanceTurn, d: Draft): Result {
  const s = d.state;
  if (!isConversational(s.mode) || !isRotating(s.tmState) || s.multiMessage) return d.done();
  const by = typeof cmd.data?.requestedBy === 'string' ? cmd.data.requestedBy : null;
  if (s.currentTurn !== null) {
    skipTurn(d, 'admin-advance', by);
    return d.done();
  }
  const held = s.heldGrant;
  if (held !== null) d.emit({ type: 'TypingHoldEnded', data: { reason: 'expired' } });
  const p = nextMemberPosition(d.state, held?.position ?? 0);
  const first = p >= 0 ? p : nextMemberPosition(d.state, 0);
  if (first >= 0) grant(d, first, held?.cycle ?? d.state.cycle + 1, 'admin-advance');
  return d.done();
}

const isHuman = (s: ChannelState, userId: string): boolean =>
  !s.members.some((m) => m.discordUserId === userId);

/**
 * A person started typing: the next grant waits for their message, at most `typingHoldMs`.
 * The service passes typing events of humans only (bots and the moderator are filtered).
 */
export function typingStarted(cmd: TypingStarted, d: Draft): Result {
  if (blank(cmd.data?.userId)) return badRequest('userId', 'userId is required');
  const s = d.state;
  const holdMs = d.config.typingHoldMs;
  if (holdMs <= 0 || d.at === null || !isConversational(s.mode) || !isRotating(s.tmState)) {
    return d.done();
  }
  if (s.multiMessage || !isHuman(s, cmd.data.userId)) return d.done();
  // Discord repeats typing every ~10 s: a running hold is not extended past its first window
  // by the same person, so a human idling in the box cannot stall the channel.
  if (s.typingHold !== null && d.at < s.typingHold.until) return d.done();
  d.emit({ type: 'TypingHoldStarted', data: { userId: cmd.data.userId, until: d.at + holdMs } });
  return d.done();
}

/** The hold's timer fired: a grant that waited for the typing person goes out now. */
export function typingHoldExpired(cmd: TypingHoldExpired, d: Draft): Result {
  const s = d.state;
  const hold = s.typingHold;
  if (hold === null || hold.until !== cmd.data?.until) return d.done();
  const held = s.heldGrant;
  d.emit({ type: 'TypingHoldEnded', data: { reason: 'expired' } });
  if (held === null || !isRotating(d.state.tmState) || d.state.currentTurn !== null) {
    return d.done();
  }
  const p = nextMemberPosition(d.state, held.position);
  if (p >= 0) grant(d, p, held.cycle, held.reason);
  else {
    const q = nextMemberPosition(d.state, 0);
    if (q >= 0) grant(d, q, held.cycle + 1, held.reason);
  }
  return d.done();
}
