import type { ChannelMode, TmState, WakeMode } from '@dirigent/contracts';

// The channel's vocabulary is the contract's (one spelling); the domain names it here.
export { CHANNEL_MODES, LOCKED_MODES, TM_STATES, WAKE_MODES } from '@dirigent/contracts';
export type { ChannelMode, TmState, WakeMode } from '@dirigent/contracts';

/** An agent present in a channel, already resolved through the identity registry. */
export interface AgentRef {
  readonly agentId: string;
  readonly discordUserId: string;
}

export type TurnOutcome = 'empty' | 'real';

export type GrantReason =
  | 'wake'
  | 'advance'
  | 'new-cycle'
  | 'multi-message-end'
  | 'discussion-start'
  | 'speaker-timeout'
  | 'admin-advance';

/** Why a turn was skipped before its speaker finished it. */
export type SkipReason = 'left-channel' | 'speaker-timeout' | 'admin-advance';

export type DormantReason = 'start' | 'unanimous-empty' | 'loop-breaker';

export type AuthorKind = 'human' | 'agent' | 'bot' | 'moderator';

export interface OpenTurn {
  readonly turnId: string;
  readonly agentId: string;
  readonly discordUserId: string;
  readonly cycle: number;
  readonly position: number;
  readonly reason: GrantReason;
  /** When the grant was decided (ms since epoch); null in events from before it was kept. */
  readonly grantedAt: number | null;
  /** Delivery must come after this message; grant-time value, replaced at check-turn. */
  readonly anchorMessageId: string | null;
  /** Only the first check-turn of a turn moves the anchor: later model calls must not narrow it. */
  readonly anchorChecked: boolean;
  readonly phase: 'running' | 'awaiting-delivery';
  readonly tailFingerprint: string | null;
  /**
   * The speaker's latest message seen during the turn. Discord may deliver the reply before
   * `turn-complete` arrives, so the match must also look backwards.
   */
  readonly lastOwnMessage: { readonly messageId: string; readonly tail: string } | null;
}

export interface DiscussionInfo {
  readonly initiatorAgentId: string;
  readonly initiatorDiscordUserId: string | null;
  readonly callbackGuildId: string;
  readonly callbackChannelId: string;
  readonly guide: string;
  readonly participants: readonly string[];
  readonly status: 'open' | 'archived';
  readonly summaryPath: string | null;
  /** The summary text, when the initiator sent it instead of a path. */
  readonly summary: string | null;
}

export interface CycleOutcome {
  readonly agentId: string;
  readonly outcome: TurnOutcome;
}

/** State of one channel aggregate. Plain JSON, so it can also be snapshotted. */
export interface ChannelState {
  readonly channelId: string;
  readonly guildId: string | null;
  /** False until the first event: an unknown channel behaves as mode `none`. */
  readonly known: boolean;
  readonly mode: ChannelMode;
  readonly tmState: TmState;
  readonly shuffleOverride: boolean | null;
  readonly wakeMode: WakeMode;
  /** Latest known agent members; applied to `speakers` only at cycle boundaries or when idle. */
  readonly members: readonly AgentRef[];
  /** The speaker list of the current cycle. */
  readonly speakers: readonly AgentRef[];
  readonly cycle: number;
  /** Index in `speakers` of the latest grant of this cycle; -1 before the first. */
  readonly position: number;
  readonly turnSeq: number;
  readonly currentTurn: OpenTurn | null;
  readonly dormant: boolean;
  readonly dormantReason: DormantReason | null;
  readonly cycleOutcomes: readonly CycleOutcome[];
  readonly lastSpeakerAgentId: string | null;
  readonly humanSeenThisCycle: boolean;
  readonly cyclesWithoutHuman: number;
  readonly multiMessage: boolean;
  readonly lastMessageId: string | null;
  readonly recentRunIds: readonly string[];
  readonly discussion: DiscussionInfo | null;
  /** When the latest archived notice was answered (rate limit). */
  readonly lastArchivedNoticeAt: number | null;
  /** A human is typing: grants wait until `until` (ms since epoch) or their message. */
  readonly typingHold: { readonly userId: string; readonly until: number } | null;
  /** A grant that waited for a typing human; granted when the hold ends. */
  readonly heldGrant: HeldGrant | null;
}

export interface HeldGrant {
  readonly position: number;
  readonly cycle: number;
  readonly reason: GrantReason;
}

/** Configuration the deciders need; the service reads it from the environment. */
export interface TurnDomainConfig {
  /** Characters of the reply's (trimmed) end that identify its last Discord fragment. */
  readonly tailFingerprintLen: number;
  readonly deliveryTimeoutMs: number;
  /** Consecutive full cycles without a human message before a chat channel rests; 0 = off. */
  readonly maxCyclesWithoutHuman: number;
  readonly scheduleIdentifier: string;
  readonly multiMessageStartMarker: string;
  readonly multiMessageEndMarker: string;
  readonly multiMessagePromptMarker: string;
  readonly archivedNotice: string;
  readonly discussionClosedNotice: string;
  /** A running speaker silent for this long is skipped; 0 = off. */
  readonly speakerTimeoutMs: number;
  /** Bot or webhook user ids that may wake a channel or interrupt a delivery wait. */
  readonly botAllowlist: readonly string[];
  /** At most one archived notice per channel in this window. */
  readonly archivedNoticeIntervalMs: number;
  /** Full discussion cycles without a human before the initiator is asked to conclude; 0 = off. */
  readonly maxDiscussionCyclesWithoutHuman: number;
  /** How long a typing human holds the next grant; 0 = off. */
  readonly typingHoldMs: number;
}

export const DEFAULT_TURN_CONFIG: TurnDomainConfig = {
  tailFingerprintLen: 40,
  deliveryTimeoutMs: 15000,
  maxCyclesWithoutHuman: 3,
  scheduleIdentifier: '➡️',
  multiMessageStartMarker: '↗️',
  multiMessageEndMarker: '↙️',
  multiMessagePromptMarker: '⤵️',
  archivedNotice: 'This channel is archived and no longer active.',
  discussionClosedNotice: 'This discussion is closed.',
  speakerTimeoutMs: 600000,
  botAllowlist: [],
  archivedNoticeIntervalMs: 60000,
  maxDiscussionCyclesWithoutHuman: 10,
  typingHoldMs: 8000,
};

/** How many recent `runId`s a channel remembers to drop redelivered `turn-complete`s. */
export const RECENT_RUN_ID_LIMIT = 64;
