import { fnv1a } from '../shared/prng';
import type { Decision } from '../shared/result';
import { accept, assertNever, refuse } from '../shared/result';
import { compareSnowflakes, isAfter } from '../shared/snowflake';
import type {
  ChannelCommand,
  CheckTurn,
  CompleteDiscussion,
  CompleteTurn,
  ConfirmDelivery,
  CreateChannel,
  CreateDiscussion,
  DeliveryTimeout,
  ObserveMessage,
  RefreshMembers,
  SetMode,
  SetShuffle,
  SetWakeMode,
} from './commands';
import type { ChannelEvent, RebuildReason } from './events';
import { evolveChannel } from './evolve';
import {
  classifyTurnText,
  computeTmState,
  containsMarker,
  contentTail,
  isChannelMode,
  isConversational,
  isRotating,
  LOCKED_MODE_SET,
  matchesTail,
  rebuildSpeakers,
  tailFingerprint,
  uniqueAgents,
} from './rules';
import type {
  AgentRef,
  AuthorKind,
  ChannelState,
  GrantReason,
  TurnDomainConfig,
  WakeMode,
} from './types';
import { DEFAULT_TURN_CONFIG, WAKE_MODES } from './types';

type Result = Decision<ChannelEvent>;

/** Collects events and keeps the state they lead to, so each rule sees the latest state. */
class Draft {
  readonly events: ChannelEvent[] = [];

  constructor(
    public state: ChannelState,
    readonly config: TurnDomainConfig,
    private readonly commandSeed: number | undefined,
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

const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

function badRequest(field: string, message: string): Result {
  return refuse('BAD_REQUEST', message, { field });
}

function validAgents(agents: readonly AgentRef[] | undefined): boolean {
  return (
    agents === undefined ||
    (Array.isArray(agents) && agents.every((a) => !blank(a?.agentId) && !blank(a?.discordUserId)))
  );
}

const isMember = (s: ChannelState, agentId: string): boolean =>
  s.members.some((m) => m.agentId === agentId);

function nextMemberPosition(s: ChannelState, from: number): number {
  for (let p = Math.max(0, from); p < s.speakers.length; p++) {
    if (isMember(s, s.speakers[p].agentId)) return p;
  }
  return -1;
}

function rebuild(d: Draft, reason: RebuildReason): { added: string[] } {
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
  d.emit({
    type: 'SpeakerListRebuilt',
    data: {
      reason,
      speakers: result.speakers,
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

function grant(d: Draft, position: number, cycle: number, reason: GrantReason): void {
  const s = d.state;
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
    },
  });
}

/** Rebuild while no cycle is running; a channel that just gained a rotation starts dormant. */
function idleRebuild(d: Draft, reason: RebuildReason, wasRotating: boolean): void {
  rebuild(d, reason);
  const s = d.state;
  if (!wasRotating && isRotating(s.tmState) && !s.multiMessage) {
    d.emit({
      type: 'WentDormant',
      data: { reason: 'start', cycle: s.cycle, cyclesWithoutHuman: s.cyclesWithoutHuman },
    });
  }
}

/** A new cycle that does not follow a completed one (interrupted delivery, multi-message end). */
function freshCycle(d: Draft, reason: GrantReason): void {
  rebuild(d, 'fresh-cycle');
  if (isRotating(d.state.tmState) && d.state.speakers.length > 0) {
    grant(d, 0, d.state.cycle + 1, reason);
  }
}

function wake(d: Draft, byMessageId: string, authorKind: AuthorKind): void {
  d.emit({ type: 'Woke', data: { byMessageId, authorKind } });
  const p = nextMemberPosition(d.state, 0);
  if (p >= 0) grant(d, p, d.state.cycle + 1, 'wake');
}

function cycleBoundary(d: Draft): void {
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
  const max = d.config.maxCyclesWithoutHuman;
  if (unanimousEmpty && added.length === 0) {
    d.emit({
      type: 'WentDormant',
      data: { reason: 'unanimous-empty', cycle, cyclesWithoutHuman },
    });
  } else if (after.mode === 'chat' && max > 0 && cyclesWithoutHuman >= max) {
    d.emit({ type: 'WentDormant', data: { reason: 'loop-breaker', cycle, cyclesWithoutHuman } });
  } else {
    grant(d, 0, cycle + 1, 'new-cycle');
  }
}

function advance(d: Draft): void {
  const p = nextMemberPosition(d.state, d.state.position + 1);
  if (p >= 0) grant(d, p, d.state.cycle, 'advance');
  else cycleBoundary(d);
}

function cancelOpenTurn(d: Draft, reason: 'multi-message' | 'mode-changed' | 'archived'): void {
  const turn = d.state.currentTurn;
  if (turn === null) return;
  d.emit({
    type: 'TurnCancelled',
    data: { turnId: turn.turnId, agentId: turn.agentId, reason, phase: turn.phase },
  });
}

function createChannel(cmd: CreateChannel, d: Draft): Result {
  const { guildId, mode, agents } = cmd.data;
  if (blank(guildId)) return badRequest('guildId', 'guildId is required');
  if ((mode as string) === 'discussion') {
    return badRequest('mode', 'discussion channels are created with CreateDiscussion');
  }
  if (!isChannelMode(mode)) return refuse('INVALID_MODE', `unknown mode "${String(mode)}"`);
  if (!validAgents(agents)) return badRequest('agents', 'every agent needs an id and a user id');
  const s = d.state;
  if (s.known) {
    return s.mode === mode
      ? d.done()
      : refuse('ALREADY_EXISTS', `channel ${s.channelId} is already configured as ${s.mode}`);
  }
  d.emit({
    type: 'ChannelCreated',
    data: {
      channelId: s.channelId,
      guildId,
      mode,
      createdByAgentId: cmd.data.createdByAgentId ?? null,
    },
  });
  refreshMembersList(d, agents);
  if (isConversational(mode)) idleRebuild(d, 'created', false);
  return d.done();
}

function createDiscussion(cmd: CreateDiscussion, d: Draft): Result {
  const c = cmd.data;
  for (const field of [
    'guildId',
    'initiatorAgentId',
    'callbackGuildId',
    'callbackChannelId',
  ] as const) {
    if (blank(c[field])) return badRequest(field, `${field} is required`);
  }
  if (typeof c.guide !== 'string') return badRequest('guide', 'guide is required');
  if (!Array.isArray(c.participants)) return badRequest('participants', 'participants[] required');
  if (!validAgents(c.agents)) return badRequest('agents', 'every agent needs an id and a user id');
  const s = d.state;
  if (s.known) {
    return s.discussion?.initiatorAgentId === c.initiatorAgentId
      ? d.done()
      : refuse('ALREADY_EXISTS', `channel ${s.channelId} is already configured as ${s.mode}`);
  }
  d.emit({
    type: 'ChannelCreated',
    data: {
      channelId: s.channelId,
      guildId: c.guildId,
      mode: 'discussion',
      createdByAgentId: c.initiatorAgentId,
    },
  });
  d.emit({
    type: 'DiscussionCreated',
    data: {
      initiatorAgentId: c.initiatorAgentId,
      initiatorDiscordUserId: c.initiatorDiscordUserId ?? null,
      callbackGuildId: c.callbackGuildId,
      callbackChannelId: c.callbackChannelId,
      guide: c.guide,
      participants: [...c.participants],
    },
  });
  refreshMembersList(d, c.agents);
  // The guide is the moderator's message, which never wakes a channel, so the first
  // speaker is granted right away instead of starting dormant.
  rebuild(d, 'created');
  if (isRotating(d.state.tmState)) grant(d, 0, 1, 'discussion-start');
  return d.done();
}

function setMode(cmd: SetMode, d: Draft): Result {
  const { guildId, mode, agents } = cmd.data;
  if (blank(guildId)) return badRequest('guildId', 'guildId is required');
  if (typeof mode !== 'string' || !isChannelMode(mode)) {
    return refuse('INVALID_MODE', `unknown mode "${String(mode)}"`, { mode });
  }
  const s = d.state;
  if (LOCKED_MODE_SET.has(s.mode)) {
    return refuse('MODE_LOCKED', `a ${s.mode} channel keeps its mode`, { current: s.mode });
  }
  if (LOCKED_MODE_SET.has(mode)) {
    return refuse('MODE_LOCKED', `${mode} is only set by its creation tool`, { requested: mode });
  }
  if (!validAgents(agents)) return badRequest('agents', 'every agent needs an id and a user id');
  if (s.known && s.mode === mode) return d.done();
  if (agents !== undefined && isConversational(mode)) refreshMembersList(d, agents);
  cancelOpenTurn(d, 'mode-changed');
  const count = isConversational(mode) ? uniqueAgents(d.state.members).length : 0;
  d.emit({
    type: 'ModeSet',
    data: {
      guildId,
      from: s.mode,
      to: mode,
      tmState: computeTmState(mode, count, d.state.shuffleOverride, false),
    },
  });
  if (isConversational(mode)) idleRebuild(d, 'mode-set', false);
  return d.done();
}

function setShuffle(cmd: SetShuffle, d: Draft): Result {
  const { shuffle } = cmd.data;
  if (shuffle !== null && typeof shuffle !== 'boolean') {
    return badRequest('shuffle', 'shuffle must be true, false or null');
  }
  const s = d.state;
  if (s.shuffleOverride === shuffle) return d.done();
  d.emit({ type: 'ShuffleOverrideSet', data: { shuffle } });
  if (isConversational(s.mode) && s.tmState !== 'archived' && s.currentTurn === null) {
    idleRebuild(d, 'shuffle-changed', isRotating(s.tmState));
  }
  return d.done();
}

function setWakeMode(cmd: SetWakeMode, d: Draft): Result {
  const { wakeMode } = cmd.data;
  if (!(WAKE_MODES as readonly string[]).includes(wakeMode)) {
    return badRequest('wakeMode', `wakeMode must be one of ${WAKE_MODES.join(', ')}`);
  }
  if (d.state.wakeMode === wakeMode) return d.done();
  d.emit({ type: 'WakeModeSet', data: { wakeMode: wakeMode as WakeMode } });
  return d.done();
}

/** Emits `MembersRefreshed` when the agent set differs; returns whether it did. */
function refreshMembersList(d: Draft, agents: readonly AgentRef[]): boolean {
  const members = uniqueAgents(agents);
  const before = new Map(d.state.members.map((m) => [m.agentId, m.discordUserId]));
  const after = new Map(members.map((m) => [m.agentId, m.discordUserId]));
  const joined = members.filter((m) => before.get(m.agentId) !== m.discordUserId);
  const left = d.state.members.filter((m) => !after.has(m.agentId));
  if (joined.length === 0 && left.length === 0) return false;
  d.emit({
    type: 'MembersRefreshed',
    data: {
      members,
      joined: joined.map((j) => j.agentId),
      left: left.map((l) => l.agentId),
    },
  });
  return true;
}

function refreshMembers(cmd: RefreshMembers, d: Draft): Result {
  const { agents } = cmd.data;
  if (!Array.isArray(agents) || !validAgents(agents)) {
    return badRequest('agents', 'every agent needs an id and a user id');
  }
  const s = d.state;
  if (!isConversational(s.mode) || s.tmState === 'archived') return d.done();
  const wasRotating = isRotating(s.tmState);
  if (!refreshMembersList(d, agents)) return d.done();
  const turn = d.state.currentTurn;
  if (turn === null) {
    idleRebuild(d, 'members-changed', wasRotating);
  } else if (!isMember(d.state, turn.agentId)) {
    d.emit({
      type: 'TurnSkipped',
      data: { turnId: turn.turnId, agentId: turn.agentId, reason: 'left-channel' },
    });
    advance(d);
  }
  return d.done();
}

/** The agent behind an author: as the service resolved it, else a known channel member. */
function authorAgentId(s: ChannelState, m: ObserveMessage['data']): string | null {
  if (m.agentIdOfAuthor) return m.agentIdOfAuthor;
  return s.members.find((a) => a.discordUserId === m.authorId)?.agentId ?? null;
}

function authorKindOf(m: ObserveMessage['data'], agentId: string | null): AuthorKind {
  if (m.isModerator) return 'moderator';
  if (agentId !== null) return 'agent';
  return m.authorIsBot ? 'bot' : 'human';
}

function observeMessage(cmd: ObserveMessage, d: Draft): Result {
  const m = cmd.data;
  if (blank(m.messageId)) return badRequest('messageId', 'messageId is required');
  if (typeof m.authorId !== 'string') return badRequest('authorId', 'authorId is required');
  const s = d.state;
  if (!isConversational(s.mode)) return d.done();
  // Discord ids grow within a channel: anything not newer is a redelivery.
  if (s.lastMessageId !== null && compareSnowflakes(m.messageId, s.lastMessageId) <= 0) {
    return d.done();
  }
  const content = typeof m.content === 'string' ? m.content : '';
  const authorAgent = authorAgentId(s, m);
  const kind = authorKindOf(m, authorAgent);
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
      },
    });

  // Precedence: archived > multi-message > delivery wait / dormant / rotation.
  if (s.tmState === 'archived') {
    seen(kind === 'moderator' ? 'none' : 'archived-notice');
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
  if (!isRotating(s.tmState)) return d.done();

  if (turn?.phase === 'awaiting-delivery') {
    if (fromSpeaker) {
      if (
        isAfter(m.messageId, turn.anchorMessageId) &&
        matchesTail(content, turn.tailFingerprint ?? '')
      ) {
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
    freshCycle(d, 'wake');
    return d.done();
  }
  if (turn !== null) return d.done();
  // After the loop breaker only a person may restart the channel, or the bots would resume.
  if (s.dormantReason === 'loop-breaker' && !human) return d.done();
  wake(d, m.messageId, kind);
  return d.done();
}

function checkTurn(cmd: CheckTurn, d: Draft): Result {
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
    data: { turnId: turn.turnId, agentId: turn.agentId, anchorMessageId: s.lastMessageId },
  });
  return d.done();
}

function completeTurn(cmd: CompleteTurn, d: Draft): Result {
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
  if (own && isAfter(own.messageId, turn.anchorMessageId) && matchesTail(own.tail, fingerprint)) {
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

function confirmDelivery(cmd: ConfirmDelivery, d: Draft): Result {
  const turn = d.state.currentTurn;
  if (turn?.phase !== 'awaiting-delivery' || turn.turnId !== cmd.data.turnId) return d.done();
  if (blank(cmd.data.messageId)) return badRequest('messageId', 'messageId is required');
  d.emit({
    type: 'DeliveryConfirmed',
    data: { turnId: turn.turnId, agentId: turn.agentId, messageId: cmd.data.messageId },
  });
  advance(d);
  return d.done();
}

function deliveryTimeout(cmd: DeliveryTimeout, d: Draft): Result {
  const turn = d.state.currentTurn;
  if (turn?.phase !== 'awaiting-delivery' || turn.turnId !== cmd.data.turnId) return d.done();
  d.emit({
    type: 'DeliveryTimedOut',
    data: { turnId: turn.turnId, agentId: turn.agentId, timeoutMs: d.config.deliveryTimeoutMs },
  });
  advance(d);
  return d.done();
}

function completeDiscussion(cmd: CompleteDiscussion, d: Draft): Result {
  const { callerAgentId, summaryPath } = cmd.data;
  if (blank(callerAgentId)) return badRequest('callerAgentId', 'callerAgentId is required');
  if (blank(summaryPath)) return badRequest('summaryPath', 'summaryPath is required');
  const discussion = d.state.discussion;
  if (d.state.mode !== 'discussion' || discussion === null) {
    return refuse('NOT_A_DISCUSSION', `channel ${d.state.channelId} is not a discussion`);
  }
  if (discussion.initiatorAgentId !== callerAgentId) {
    return refuse('FORBIDDEN', 'only the initiator may complete the discussion', {
      initiatorAgentId: discussion.initiatorAgentId,
    });
  }
  if (discussion.status === 'archived') return d.done();
  cancelOpenTurn(d, 'archived');
  d.emit({ type: 'DiscussionArchived', data: { callerAgentId, summaryPath } });
  return d.done();
}

/**
 * Decides what a command means for one channel. Pure: everything it needs (ids, seeds,
 * resolved members, configuration) is in its arguments.
 *
 * @example
 * const decision = decideChannel(
 *   { type: 'CompleteTurn', data: { agentId: 'alice', runId: 'r1', text: 'NO_REPLY' } },
 *   state,
 *   DEFAULT_TURN_CONFIG,
 * );
 * if (decision.ok) for (const e of decision.events) state = evolveChannel(state, e);
 * else reply({ ok: false, error: decision.error });
 */
export function decideChannel(
  command: ChannelCommand,
  state: ChannelState,
  config: TurnDomainConfig = DEFAULT_TURN_CONFIG,
): Decision<ChannelEvent> {
  const d = new Draft(state, config, command.seed);
  switch (command.type) {
    case 'CreateChannel':
      return createChannel(command, d);
    case 'CreateDiscussion':
      return createDiscussion(command, d);
    case 'SetMode':
      return setMode(command, d);
    case 'SetShuffle':
      return setShuffle(command, d);
    case 'SetWakeMode':
      return setWakeMode(command, d);
    case 'RefreshMembers':
      return refreshMembers(command, d);
    case 'ObserveMessage':
      return observeMessage(command, d);
    case 'CheckTurn':
      return checkTurn(command, d);
    case 'CompleteTurn':
      return completeTurn(command, d);
    case 'ConfirmDelivery':
      return confirmDelivery(command, d);
    case 'DeliveryTimeout':
      return deliveryTimeout(command, d);
    case 'CompleteDiscussion':
      return completeDiscussion(command, d);
    default:
      return assertNever(command);
  }
}
