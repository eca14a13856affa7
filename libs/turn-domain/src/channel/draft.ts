import { fnv1a } from '../shared/prng';
import type { Decision } from '../shared/result';
import { accept, refuse } from '../shared/result';
import type { ChannelEvent, RebuildReason } from './events';
import { evolveChannel } from './evolve';
import { computeTmState, isRotating, rebuildSpeakers } from './rules';
import type {
  AgentRef,
  AuthorKind,
  ChannelState,
  GrantReason,
  SkipReason,
  TurnDomainConfig,
} from './types';

/** What a decider returns: the events, or a refusal. */
export type Result = Decision<ChannelEvent>;

/** Collects events and keeps the state they lead to, so each rule sees the latest state. */
export class Draft {
  readonly events: ChannelEvent[] = [];

  constructor(
    public state: ChannelState,
    readonly config: TurnDomainConfig,
    private readonly commandSeed: number | undefined,
    /** The command's time (ms since epoch), when the service gave one. */
    readonly at: number | null = null,
  ) {}

  emit(event: ChannelEvent): void {
    this.events.push(event);
    this.state = evolveChannel(this.state, event);
  }

  seed(): number {
    if (this.commandSeed !== undefined) return this.commandSeed >>> 0;
    const s = this.state;
    return fnv1a(`${s.channelId}:${s.cycle}:${s.turnSeq}:${this.events.length}`);
  }

  done(): Result {
    return accept(this.events);
  }
}

export const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

export function badRequest(field: string, message: string): Result {
  return refuse('BAD_REQUEST', message, { field });
}

export function validAgents(agents: readonly AgentRef[] | undefined): boolean {
  return (
    agents === undefined ||
    (Array.isArray(agents) && agents.every((a) => !blank(a?.agentId) && !blank(a?.discordUserId)))
  );
}

export const isMember = (s: ChannelState, agentId: string): boolean =>
  s.members.some((m) => m.agentId === agentId);

export function nextMemberPosition(s: ChannelState, from: number): number {
  for (let p = Math.max(0, from); p < s.speakers.length; p++) {
    if (isMember(s, s.speakers[p].agentId)) return p;
  }
  return -1;
}

/** `speakers` turned so that `first` leads (order otherwise kept); unchanged when absent. */
function startingWith(speakers: AgentRef[], first: string | null): AgentRef[] {
  const i = first === null ? -1 : speakers.findIndex((a) => a.agentId === first);
  return i <= 0 ? speakers : [...speakers.slice(i), ...speakers.slice(0, i)];
}

/** The agent after `agentId` in `speakers` (wrapping); null when it is not in the list. */
function nextAfter(speakers: readonly AgentRef[], agentId: string | null): string | null {
  const i = agentId === null ? -1 : speakers.findIndex((a) => a.agentId === agentId);
  return i < 0 || speakers.length < 2 ? null : speakers[(i + 1) % speakers.length].agentId;
}

/**
 * Rebuilds the speaker list. `first` (a fresh cycle: the agent a human named, or the one after
 * the last speaker) leads the new list, so a restart continues the rotation instead of going
 * back to its head.
 */
export function rebuild(
  d: Draft,
  reason: RebuildReason,
  first: { agentId?: string | null; after?: string | null } = {},
): { added: string[] } {
  const s = d.state;
  const archived = s.discussion?.status === 'archived';
  const plain = rebuildSpeakers(s.speakers, s.members, {
    shuffle: false,
    seed: 0,
    avoidFirst: null,
  });
  const tmState = computeTmState(s.mode, plain.speakers.length, s.shuffleOverride, archived);
  const shuffled = tmState === 'shuffle';
  const seed = shuffled ? d.seed() : null;
  const avoidFirst = shuffled ? s.lastSpeakerAgentId : null;
  const result = shuffled
    ? rebuildSpeakers(s.speakers, s.members, { shuffle: true, seed: seed ?? 0, avoidFirst })
    : plain;
  const lead = first.agentId ?? (shuffled ? null : nextAfter(result.speakers, first.after ?? null));
  d.emit({
    type: 'SpeakerListRebuilt',
    data: {
      reason,
      speakers: startingWith(result.speakers, lead),
      added: result.added,
      removed: result.removed,
      tmState,
      shuffled,
      seed,
      avoidFirst,
    },
  });
  return { added: result.added };
}

/** True while a typing human holds the next grant. */
export function typingHeld(d: Draft): boolean {
  const hold = d.state.typingHold;
  return hold !== null && d.at !== null && d.at < hold.until;
}

export function grant(d: Draft, position: number, cycle: number, reason: GrantReason): void {
  const s = d.state;
  if (typingHeld(d) && s.typingHold) {
    d.emit({
      type: 'GrantHeld',
      data: { position, cycle, reason, until: s.typingHold.until },
    });
    return;
  }
  const speaker = s.speakers[position];
  d.emit({
    type: 'TurnGranted',
    data: {
      turnId: `${s.channelId}:${s.turnSeq + 1}`,
      agentId: speaker.agentId,
      discordUserId: speaker.discordUserId,
      cycle,
      position,
      reason,
      anchorMessageId: s.lastMessageId,
      ...(d.at !== null ? { grantedAt: d.at } : {}),
    },
  });
}

/** Rebuild while no cycle is running; a channel that just gained a rotation starts dormant. */
export function idleRebuild(d: Draft, reason: RebuildReason, wasRotating: boolean): void {
  rebuild(d, reason);
  const s = d.state;
  if (!wasRotating && isRotating(s.tmState) && !s.multiMessage) {
    d.emit({
      type: 'WentDormant',
      data: { reason: 'start', cycle: s.cycle, cyclesWithoutHuman: s.cyclesWithoutHuman },
    });
  }
}

/**
 * A new cycle that does not follow a completed one (interrupted delivery, multi-message end):
 * it starts at `mentioned` when a human named a speaker, else at the agent after the last one
 * who spoke.
 */
export function freshCycle(d: Draft, reason: GrantReason, mentioned: string | null = null): void {
  rebuild(d, 'fresh-cycle', { agentId: mentioned, after: d.state.lastSpeakerAgentId });
  if (isRotating(d.state.tmState) && d.state.speakers.length > 0) {
    grant(d, 0, d.state.cycle + 1, reason);
  }
}

/** The first speaker of the channel a message mentions, if any. */
export function mentionedSpeaker(s: ChannelState, mentions: readonly string[] | undefined) {
  if (!mentions?.length) return null;
  const named = s.speakers.find(
    (a) => mentions.includes(a.discordUserId) && isMember(s, a.agentId),
  );
  return named?.agentId ?? null;
}

export function wake(
  d: Draft,
  byMessageId: string,
  authorKind: AuthorKind,
  mentioned: string | null = null,
): void {
  d.emit({ type: 'Woke', data: { byMessageId, authorKind } });
  if (mentioned !== null && d.state.speakers[0]?.agentId !== mentioned) {
    // Named by a human: that agent opens the cycle and the rotation carries on from it.
    freshCycle(d, 'wake', mentioned);
    return;
  }
  const p = nextMemberPosition(d.state, 0);
  if (p >= 0) grant(d, p, d.state.cycle + 1, 'wake');
}

export function cycleBoundary(d: Draft, reason: GrantReason = 'new-cycle'): void {
  const s = d.state;
  const outcomes = [...s.cycleOutcomes];
  const unanimousEmpty = outcomes.every((o) => o.outcome === 'empty');
  const humanSeen = s.humanSeenThisCycle;
  const cyclesWithoutHuman = humanSeen ? 0 : s.cyclesWithoutHuman + 1;
  const cycle = s.cycle;
  const lastSpeakerAgentId = s.lastSpeakerAgentId;
  // Rebuild first: whether new agents joined is part of the dormancy rule.
  const pending = rebuildSpeakers(s.speakers, s.members, {
    shuffle: false,
    seed: 0,
    avoidFirst: null,
  });
  d.emit({
    type: 'CycleCompleted',
    data: {
      cycle,
      lastSpeakerAgentId,
      outcomes,
      unanimousEmpty,
      newAgents: pending.added,
      humanSeen,
      cyclesWithoutHuman,
    },
  });
  const { added } = rebuild(d, 'cycle-boundary');
  const after = d.state;
  if (!isRotating(after.tmState)) return;
  const max =
    after.mode === 'chat'
      ? d.config.maxCyclesWithoutHuman
      : d.config.maxDiscussionCyclesWithoutHuman;
  // A person who spoke while the cycle ran spoke after some of its speakers had passed: they
  // get another chance at it (a new message is a new topic), so such a cycle goes round
  // again instead of going dormant; the next all-empty cycle without one does.
  if (unanimousEmpty && added.length === 0 && !humanSeen) {
    d.emit({
      type: 'WentDormant',
      data: { reason: 'unanimous-empty', cycle, cyclesWithoutHuman },
    });
  } else if (max > 0 && cyclesWithoutHuman >= max) {
    d.emit({ type: 'WentDormant', data: { reason: 'loop-breaker', cycle, cyclesWithoutHuman } });
  } else {
    grant(d, 0, cycle + 1, reason);
  }
}

/** The next speaker of the cycle, or the cycle boundary; `reason` is the grant's. */
export function advance(d: Draft, reason: GrantReason = 'advance'): void {
  const p = nextMemberPosition(d.state, d.state.position + 1);
  if (p >= 0) grant(d, p, d.state.cycle, reason);
  else cycleBoundary(d, reason === 'advance' ? 'new-cycle' : reason);
}

/** Ends the open turn before its speaker did, and passes the floor on. */
export function skipTurn(d: Draft, reason: SkipReason, requestedBy: string | null = null): void {
  const turn = d.state.currentTurn;
  if (turn === null) return;
  d.emit({
    type: 'TurnSkipped',
    data: {
      turnId: turn.turnId,
      agentId: turn.agentId,
      reason,
      ...(requestedBy ? { requestedBy } : {}),
    },
  });
  advance(d, reason === 'left-channel' ? 'advance' : reason);
}

export function cancelOpenTurn(
  d: Draft,
  reason: 'multi-message' | 'mode-changed' | 'archived',
): void {
  const turn = d.state.currentTurn;
  if (turn === null) return;
  d.emit({
    type: 'TurnCancelled',
    data: { turnId: turn.turnId, agentId: turn.agentId, reason, phase: turn.phase },
  });
}
