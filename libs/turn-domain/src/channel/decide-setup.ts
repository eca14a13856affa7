import { refuse } from '../shared/result';
import type {
  CompleteDiscussion,
  CreateChannel,
  CreateDiscussion,
  RefreshMembers,
  SetMode,
  SetShuffle,
  SetWakeMode,
} from './commands';
import {
  computeTmState,
  isChannelMode,
  isConversational,
  isRotating,
  LOCKED_MODE_SET,
  uniqueAgents,
} from './rules';
import type { AgentRef, WakeMode } from './types';
import { WAKE_MODES } from './types';

import {
  Draft,
  blank,
  badRequest,
  validAgents,
  isMember,
  rebuild,
  grant,
  idleRebuild,
  advance,
  cancelOpenTurn,
  type Result,
} from './draft';

export function createChannel(cmd: CreateChannel, d: Draft): Result {
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

export function createDiscussion(cmd: CreateDiscussion, d: Draft): Result {
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

export function setMode(cmd: SetMode, d: Draft): Result {
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
  if (s.known && s.mode === mode) {
    // Re-setting the mode is how an admin says "look again": apply the members it brought.
    if (agents !== undefined && isConversational(mode)) applyMembers(d, agents);
    return d.done();
  }
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

export function setShuffle(cmd: SetShuffle, d: Draft): Result {
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

export function setWakeMode(cmd: SetWakeMode, d: Draft): Result {
  const { wakeMode } = cmd.data;
  if (!(WAKE_MODES as readonly string[]).includes(wakeMode)) {
    return badRequest('wakeMode', `wakeMode must be one of ${WAKE_MODES.join(', ')}`);
  }
  if (d.state.wakeMode === wakeMode) return d.done();
  d.emit({ type: 'WakeModeSet', data: { wakeMode: wakeMode as WakeMode } });
  return d.done();
}

/** Emits `MembersRefreshed` when the agent set differs; returns whether it did. */
export function refreshMembersList(d: Draft, agents: readonly AgentRef[]): boolean {
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

export function refreshMembers(cmd: RefreshMembers, d: Draft): Result {
  const { agents } = cmd.data;
  if (!Array.isArray(agents) || !validAgents(agents)) {
    return badRequest('agents', 'every agent needs an id and a user id');
  }
  const s = d.state;
  if (!isConversational(s.mode) || s.tmState === 'archived') return d.done();
  applyMembers(d, agents);
  return d.done();
}

/**
 * New members of a conversational channel: idle, the speaker list is rebuilt at once (so a
 * disabled channel whose second agent arrives starts rotating); a running speaker who left is
 * skipped; other changes wait for the cycle boundary.
 */
function applyMembers(d: Draft, agents: readonly AgentRef[]): void {
  const wasRotating = isRotating(d.state.tmState);
  if (!refreshMembersList(d, agents)) {
    // Same members, but a speaker list that no longer fits them (e.g. built while one agent
    // was missing): rebuild while idle.
    const s = d.state;
    const fits =
      computeTmState(s.mode, uniqueAgents(s.members).length, s.shuffleOverride, false) ===
        s.tmState && s.speakers.length === uniqueAgents(s.members).length;
    if (s.currentTurn === null && !s.multiMessage && !fits) {
      idleRebuild(d, 'members-changed', wasRotating);
    }
    return;
  }
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
}

export function completeDiscussion(cmd: CompleteDiscussion, d: Draft): Result {
  const { callerAgentId } = cmd.data;
  const summaryPath = blank(cmd.data.summaryPath) ? null : (cmd.data.summaryPath as string);
  const summary = blank(cmd.data.summary) ? null : (cmd.data.summary as string);
  if (blank(callerAgentId)) return badRequest('callerAgentId', 'callerAgentId is required');
  if (summaryPath === null && summary === null) {
    return badRequest('summaryPath', 'summaryPath or summary is required');
  }
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
  d.emit({
    type: 'DiscussionArchived',
    data: { callerAgentId, summaryPath, ...(summary !== null ? { summary } : {}) },
  });
  return d.done();
}
