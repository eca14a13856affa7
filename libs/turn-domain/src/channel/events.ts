import type {
  AgentRef,
  AuthorKind,
  ChannelMode,
  CycleOutcome,
  DormantReason,
  GrantReason,
  SkipReason,
  TmState,
  TurnOutcome,
  WakeMode,
} from './types';

/** Every event is plain JSON (no undefined, no Date): they are stored in JetStream. */
type Evt<T extends string, D> = { readonly type: T; readonly data: D };

export type ChannelCreated = Evt<
  'ChannelCreated',
  { channelId: string; guildId: string; mode: ChannelMode; createdByAgentId: string | null }
>;

export type ModeSet = Evt<
  'ModeSet',
  { guildId: string; from: ChannelMode; to: ChannelMode; tmState: TmState }
>;

export type DiscussionCreated = Evt<
  'DiscussionCreated',
  {
    initiatorAgentId: string;
    initiatorDiscordUserId: string | null;
    callbackGuildId: string;
    callbackChannelId: string;
    guide: string;
    participants: string[];
  }
>;

export type ShuffleOverrideSet = Evt<'ShuffleOverrideSet', { shuffle: boolean | null }>;

export type WakeModeSet = Evt<'WakeModeSet', { wakeMode: WakeMode }>;

export type MembersRefreshed = Evt<
  'MembersRefreshed',
  { members: AgentRef[]; joined: string[]; left: string[] }
>;

export type RebuildReason =
  | 'created'
  | 'mode-set'
  | 'cycle-boundary'
  | 'members-changed'
  | 'shuffle-changed'
  | 'fresh-cycle';

export type SpeakerListRebuilt = Evt<
  'SpeakerListRebuilt',
  {
    reason: RebuildReason;
    speakers: AgentRef[];
    added: string[];
    removed: string[];
    tmState: TmState;
    shuffled: boolean;
    seed: number | null;
    avoidFirst: string | null;
  }
>;

export type TurnGranted = Evt<
  'TurnGranted',
  {
    turnId: string;
    agentId: string;
    discordUserId: string;
    cycle: number;
    position: number;
    reason: GrantReason;
    anchorMessageId: string | null;
    /** Present when the deciding command carried its time. */
    grantedAt?: number;
  }
>;

export type TurnAnchorRecorded = Evt<
  'TurnAnchorRecorded',
  { turnId: string; agentId: string; anchorMessageId: string | null }
>;

export type TurnCompleted = Evt<
  'TurnCompleted',
  {
    turnId: string;
    agentId: string;
    runId: string;
    outcome: TurnOutcome;
    tailFingerprint: string | null;
  }
>;

export type DeliveryWaitStarted = Evt<
  'DeliveryWaitStarted',
  {
    turnId: string;
    agentId: string;
    discordUserId: string;
    anchorMessageId: string | null;
    tailFingerprint: string;
    timeoutMs: number;
  }
>;

export type DeliveryConfirmed = Evt<
  'DeliveryConfirmed',
  { turnId: string; agentId: string; messageId: string }
>;

/** A warning: the reply was never seen on Discord and the turn advanced anyway. */
export type DeliveryTimedOut = Evt<
  'DeliveryTimedOut',
  { turnId: string; agentId: string; timeoutMs: number }
>;

/** Someone else spoke while the reply was being delivered; the channel wakes afresh. */
export type DeliveryWaitCancelled = Evt<
  'DeliveryWaitCancelled',
  { turnId: string; agentId: string; byMessageId: string; authorKind: AuthorKind }
>;

export type TurnSkipped = Evt<
  'TurnSkipped',
  { turnId: string; agentId: string; reason: SkipReason; requestedBy?: string }
>;

export type TurnCancelled = Evt<
  'TurnCancelled',
  {
    turnId: string;
    agentId: string;
    reason: 'multi-message' | 'mode-changed' | 'archived';
    phase: 'running' | 'awaiting-delivery';
  }
>;

export type CycleCompleted = Evt<
  'CycleCompleted',
  {
    cycle: number;
    lastSpeakerAgentId: string | null;
    outcomes: CycleOutcome[];
    unanimousEmpty: boolean;
    newAgents: string[];
    humanSeen: boolean;
    cyclesWithoutHuman: number;
  }
>;

export type WentDormant = Evt<
  'WentDormant',
  { reason: DormantReason; cycle: number; cyclesWithoutHuman: number }
>;

export type Woke = Evt<'Woke', { byMessageId: string; authorKind: AuthorKind }>;

/** What the moderator should answer to an observed message. */
export type MessageReaction = 'none' | 'prompt-marker' | 'archived-notice';

export type MessageSeen = Evt<
  'MessageSeen',
  {
    messageId: string;
    authorId: string;
    authorKind: AuthorKind;
    agentId: string | null;
    /** Trimmed content tail, kept only for the open turn's speaker (delivery matching). */
    tail: string | null;
    reaction: MessageReaction;
    /** With an archived notice: when it was answered (for the rate limit). */
    at?: number;
  }
>;

export type MultiMessageStarted = Evt<'MultiMessageStarted', { byMessageId: string }>;

export type MultiMessageEnded = Evt<'MultiMessageEnded', { byMessageId: string }>;

export type DiscussionArchived = Evt<
  'DiscussionArchived',
  { callerAgentId: string; summaryPath: string | null; summary?: string }
>;

/** A human started typing: the next grant waits until `until` or their message. */
export type TypingHoldStarted = Evt<'TypingHoldStarted', { userId: string; until: number }>;

export type TypingHoldEnded = Evt<'TypingHoldEnded', { reason: 'expired' | 'message' }>;

/** A grant that waits for a typing human. */
export type GrantHeld = Evt<
  'GrantHeld',
  { position: number; cycle: number; reason: GrantReason; until: number }
>;

export type ChannelEvent =
  | ChannelCreated
  | ModeSet
  | DiscussionCreated
  | ShuffleOverrideSet
  | WakeModeSet
  | MembersRefreshed
  | SpeakerListRebuilt
  | TurnGranted
  | TurnAnchorRecorded
  | TurnCompleted
  | DeliveryWaitStarted
  | DeliveryConfirmed
  | DeliveryTimedOut
  | DeliveryWaitCancelled
  | TurnSkipped
  | TurnCancelled
  | CycleCompleted
  | WentDormant
  | Woke
  | MessageSeen
  | MultiMessageStarted
  | MultiMessageEnded
  | DiscussionArchived
  | TypingHoldStarted
  | TypingHoldEnded
  | GrantHeld;

export type ChannelEventType = ChannelEvent['type'];

/** All event type names, e.g. for a JetStream subject filter or a schema registry. */
export const CHANNEL_EVENT_TYPES: readonly ChannelEventType[] = [
  'ChannelCreated',
  'ModeSet',
  'DiscussionCreated',
  'ShuffleOverrideSet',
  'WakeModeSet',
  'MembersRefreshed',
  'SpeakerListRebuilt',
  'TurnGranted',
  'TurnAnchorRecorded',
  'TurnCompleted',
  'DeliveryWaitStarted',
  'DeliveryConfirmed',
  'DeliveryTimedOut',
  'DeliveryWaitCancelled',
  'TurnSkipped',
  'TurnCancelled',
  'CycleCompleted',
  'WentDormant',
  'Woke',
  'MessageSeen',
  'MultiMessageStarted',
  'MultiMessageEnded',
  'DiscussionArchived',
  'TypingHoldStarted',
  'TypingHoldEnded',
  'GrantHeld',
];
