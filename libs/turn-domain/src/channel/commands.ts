import type { AgentRef } from './types';

/**
 * A channel command. `seed` feeds the shuffle PRNG whenever this command rebuilds a shuffled
 * speaker list; without one a seed is derived from the state. Either way the seed used is
 * stored in the event, so replay never needs it again.
 */
type Cmd<T extends string, D> = {
  readonly type: T;
  readonly data: D;
  readonly seed?: number;
  /** When the service received the input (ms since epoch): deciders never read a clock. */
  readonly at?: number;
};

/** `create-chat-/report-/work-channel` tools: the Discord channel already exists. */
export type CreateChannel = Cmd<
  'CreateChannel',
  {
    guildId: string;
    mode: 'none' | 'work' | 'report' | 'chat';
    /** Channel members already filtered through the identity registry. */
    agents: readonly AgentRef[];
    createdByAgentId?: string | null;
  }
>;

/** `create-discussion-channel`: the private channel exists and the callback was checked. */
export type CreateDiscussion = Cmd<
  'CreateDiscussion',
  {
    guildId: string;
    agents: readonly AgentRef[];
    initiatorAgentId: string;
    initiatorDiscordUserId?: string | null;
    callbackGuildId: string;
    callbackChannelId: string;
    guide: string;
    /** Discord user ids as the tool received them. */
    participants: readonly string[];
  }
>;

/** Admin `set-mode` (slash command, control page). `mode` is unchecked input. */
export type SetMode = Cmd<
  'SetMode',
  { guildId: string; mode: string; agents?: readonly AgentRef[] }
>;

/** Admin `set-shuffle`; `null` returns to "by agent count". */
export type SetShuffle = Cmd<'SetShuffle', { shuffle: boolean | null }>;

export type SetWakeMode = Cmd<'SetWakeMode', { wakeMode: string }>;

/** Current agent members (from the members query or a join/leave event), resolved. */
export type RefreshMembers = Cmd<'RefreshMembers', { agents: readonly AgentRef[] }>;

/** Every `message.created` in the channel. */
export type ObserveMessage = Cmd<
  'ObserveMessage',
  {
    messageId: string;
    authorId: string;
    authorIsBot: boolean;
    content: string;
    /** The author is Dirigent's own moderator bot. */
    isModerator: boolean;
    /** Registered agent behind the author, if any. */
    agentIdOfAuthor?: string | null;
    /** Sent through a webhook (feeds, integrations): never an agent, never the moderator. */
    isWebhook?: boolean;
    /** Discord user ids mentioned in the message. */
    mentions?: readonly string[];
  }
>;

/** `check-turn`: only records the anchor; answer the request with `evaluateCheckTurn`. */
export type CheckTurn = Cmd<'CheckTurn', { agentId: string }>;

export type CompleteTurn = Cmd<
  'CompleteTurn',
  {
    agentId: string;
    runId: string;
    /** Final reply text of the run (`NO_REPLY`, `NO` or blank = empty turn). */
    text: string;
    /**
     * The `turnId` check-turn answered with, when the runtime knows it. A completion for an
     * older turn (a run that was refused, finishing after the agent's real turn began) is
     * then ignored instead of being counted as this turn.
     */
    turnId?: string | null;
    /**
     * When the completion was published (ms since epoch, JetStream's time). Without a
     * `turnId`, a completion published before the current grant belongs to an older turn.
     */
    publishedAt?: number | null;
  }
>;

/** Explicit delivery confirmation (e.g. found by polling channel history). */
export type ConfirmDelivery = Cmd<'ConfirmDelivery', { turnId: string; messageId: string }>;

/** Fired by the durable timer scheduled on `DeliveryWaitStarted`. */
export type DeliveryTimeout = Cmd<'DeliveryTimeout', { turnId: string }>;

/** `discussion-complete`; the service has already checked the summary path. One of both. */
export type CompleteDiscussion = Cmd<
  'CompleteDiscussion',
  { callerAgentId: string; summaryPath?: string | null; summary?: string | null }
>;

/** Fired by the durable timer armed at a grant (and re-armed when the speaker posts). */
export type SpeakerTimeout = Cmd<'SpeakerTimeout', { turnId: string }>;

/** Admin "advance": skip the current speaker now. */
export type AdvanceTurn = Cmd<'AdvanceTurn', { requestedBy?: string | null }>;

/** `typing.started` in the channel. */
export type TypingStarted = Cmd<'TypingStarted', { userId: string }>;

/** Fired by the durable timer armed when a typing hold starts. */
export type TypingHoldExpired = Cmd<'TypingHoldExpired', { until: number }>;

/** Commands a durable channel timer may carry. */
export type TimerCommand = DeliveryTimeout | SpeakerTimeout | TypingHoldExpired;

export type ChannelCommand =
  | CreateChannel
  | CreateDiscussion
  | SetMode
  | SetShuffle
  | SetWakeMode
  | RefreshMembers
  | ObserveMessage
  | CheckTurn
  | CompleteTurn
  | ConfirmDelivery
  | DeliveryTimeout
  | CompleteDiscussion
  | SpeakerTimeout
  | AdvanceTurn
  | TypingStarted
  | TypingHoldExpired;

export type ChannelCommandType = ChannelCommand['type'];
