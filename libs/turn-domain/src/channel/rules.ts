import { NO_REPLY } from '@dirigent/contracts';
import { seededShuffle } from '../shared/prng';
import type { AgentRef, ChannelMode, TmState, TurnOutcome } from './types';
import { CHANNEL_MODES, LOCKED_MODES } from './types';

export function isChannelMode(value: string): value is ChannelMode {
  return (CHANNEL_MODES as readonly string[]).includes(value);
}

/** Chat and discussion channels are the only ones with a speaker rotation. */
export function isConversational(mode: ChannelMode): boolean {
  return mode === 'chat' || mode === 'discussion';
}

export function isRotating(tmState: TmState): boolean {
  return tmState === 'normal' || tmState === 'shuffle';
}

/**
 * Turn-manager state from the mode table of the design (§2), plus the per-channel shuffle
 * override: `true` shuffles even two agents, `false` keeps three or more in fixed order.
 */
export function computeTmState(
  mode: ChannelMode,
  agentCount: number,
  shuffleOverride: boolean | null,
  archived: boolean,
): TmState {
  if (archived) return 'archived';
  switch (mode) {
    case 'none':
    case 'work':
      return 'disabled';
    case 'report':
      return 'dead';
    case 'chat':
    case 'discussion':
      if (agentCount <= 1) return 'disabled';
      if (shuffleOverride !== null) return shuffleOverride ? 'shuffle' : 'normal';
      return agentCount === 2 ? 'normal' : 'shuffle';
    default: {
      const unreachable: never = mode;
      return unreachable;
    }
  }
}

const EMPTY_REPLIES = new Set(['', NO_REPLY, 'NO']);

/** `NO_REPLY`, `NO` and blank replies (after trimming) are empty turns; all else is real. */
export function classifyTurnText(text: string): TurnOutcome {
  return EMPTY_REPLIES.has(text.trim()) ? 'empty' : 'real';
}

/**
 * Text as compared for delivery: Discord rewrites what an agent sends (`@Bob` becomes
 * `<@123>`, `:wave:` of a custom emoji becomes `<:wave:456>`) and may change whitespace, so
 * both sides drop mention targets, keep emoji names and collapse whitespace.
 *
 * @example
 * normalizeForMatch('hi <@123>  <:wave:456>'); // 'hi @ :wave:'
 * normalizeForMatch('hi @Bob :wave:'); // 'hi @ :wave:'
 */
export function normalizeForMatch(text: string, trim = true): string {
  const out = text
    .replace(/<a?(:[A-Za-z0-9_~-]+:)\d+>/g, '$1')
    .replace(/<(?:@[!&]?|#)\d+>/g, '@')
    .replace(/@[^\s@<>:]+/g, '@')
    .replace(/\s+/g, ' ');
  return trim ? out.trim() : out;
}

/** The last `len` characters of the normalised reply: what its final Discord fragment ends with. */
export function tailFingerprint(text: string, len: number): string {
  const normalized = normalizeForMatch(text);
  return len > 0 ? normalized.slice(-len) : normalized;
}

/** True when a Discord message's content ends with the reply's tail fingerprint. */
export function matchesTail(content: string, fingerprint: string): boolean {
  return (
    fingerprint.length > 0 &&
    normalizeForMatch(content).endsWith(normalizeForMatch(fingerprint, false))
  );
}

/** What is kept of a speaker's message to match it later against a fingerprint of `len`. */
export function contentTail(content: string, len: number): string {
  const normalized = normalizeForMatch(content);
  return len > 0 ? normalized.slice(-len) : normalized;
}

export function containsMarker(content: string, marker: string): boolean {
  return marker.length > 0 && content.includes(marker);
}

/** Drops duplicate agents (by agent id or Discord id), keeping the first occurrence. */
export function uniqueAgents(agents: readonly AgentRef[]): AgentRef[] {
  const byAgent = new Set<string>();
  const byUser = new Set<string>();
  const out: AgentRef[] = [];
  for (const a of agents) {
    if (byAgent.has(a.agentId) || byUser.has(a.discordUserId)) continue;
    byAgent.add(a.agentId);
    byUser.add(a.discordUserId);
    out.push({ agentId: a.agentId, discordUserId: a.discordUserId });
  }
  return out;
}

export interface RebuiltSpeakers {
  readonly speakers: AgentRef[];
  readonly added: string[];
  readonly removed: string[];
}

/**
 * The speaker list for the next cycle: departed agents dropped, the rest keep their order,
 * newcomers are appended; when `shuffle` is set the whole list is then reshuffled with
 * `avoidFirst` never in front.
 *
 * @example
 * rebuildSpeakers([a, b], [b, c], { shuffle: false, seed: 1, avoidFirst: null });
 * // → { speakers: [b, c], added: ['c'], removed: ['a'] }
 */
export function rebuildSpeakers(
  previous: readonly AgentRef[],
  members: readonly AgentRef[],
  opts: { shuffle: boolean; seed: number; avoidFirst: string | null },
): RebuiltSpeakers {
  const current = uniqueAgents(members);
  const memberById = new Map(current.map((m) => [m.agentId, m]));
  const previousIds = new Set(previous.map((p) => p.agentId));
  const kept = previous.flatMap((p) => {
    const m = memberById.get(p.agentId);
    return m ? [m] : [];
  });
  const newcomers = current.filter((m) => !previousIds.has(m.agentId));
  const ordered = [...kept, ...newcomers];
  const speakers = opts.shuffle
    ? seededShuffle(ordered, opts.seed, (a) => a.agentId === opts.avoidFirst)
    : ordered;
  return {
    speakers,
    added: newcomers.map((n) => n.agentId),
    removed: previous.filter((p) => !memberById.has(p.agentId)).map((p) => p.agentId),
  };
}

export const LOCKED_MODE_SET: ReadonlySet<string> = new Set<string>(LOCKED_MODES);
