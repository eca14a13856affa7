import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { createValidated } from './validation';

import { AgentId, Snowflake, Snowflakes } from './rules';

export { AGENT_ID_PATTERN, AGENT_ID_RULE } from './rules';
export {
  compareSnowflakes,
  INSTANCE_PATTERN,
  INSTANCE_RULE,
  laterSnowflake,
  MASTER_INSTANCE,
  SNOWFLAKE_PATTERN,
} from './rules';

export const CHANNEL_MODES = ['none', 'work', 'report', 'discussion', 'chat'] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];
/** Modes an operator may set (slash command, control page). */
export const SETTABLE_MODES = ['none', 'chat', 'report'] as const satisfies readonly ChannelMode[];
export type SettableMode = (typeof SETTABLE_MODES)[number];
/** Modes only the agents' channel-creation tools set; they never change afterwards. */
export const LOCKED_MODES: readonly ChannelMode[] = CHANNEL_MODES.filter(
  (m) => !(SETTABLE_MODES as readonly ChannelMode[]).includes(m),
);
export const TM_STATES = ['disabled', 'dead', 'normal', 'shuffle', 'archived'] as const;
export type TmState = (typeof TM_STATES)[number];
export const MESSAGE_PURPOSES = [
  'schedule-identifier',
  'prompt-marker',
  'archived-notice',
  'discussion-guide',
  'discussion-reminder',
  'discussion-summary',
  'agent-reply',
  'notice',
] as const;
export type MessagePurpose = (typeof MESSAGE_PURPOSES)[number];

// ---------- Discord events (ingest → JetStream) ----------

/**
 * The largest values `MessageCreated` accepts: `content` is Discord's own limit for boosted
 * users; ingest cuts a longer message to these before it publishes.
 */
export const MESSAGE_LIMITS = { content: 4000, authorName: 100, mentions: 100 } as const;

/**
 * Who may see a channel: `public` when the guild's `@everyone` may view it (after the
 * channel's overwrites), `private` otherwise. A thread has its parent's audience.
 */
export const AUDIENCES = ['public', 'private'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** The longest `audienceKey` the ingest sends. */
export const AUDIENCE_KEY_MAX = 200;

export class MessageCreated {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  @Snowflake() authorId: string;
  @IsBoolean() authorIsBot: boolean;
  @IsString() @MaxLength(MESSAGE_LIMITS.content) content: string;
  @IsISO8601() createdAt: string;
  @IsOptional() @Snowflake() webhookId?: string;
  /** Display name: the member's nick, else the user's global name, else the username. */
  @IsOptional() @IsString() @MaxLength(MESSAGE_LIMITS.authorName) authorName?: string;
  /** Users mentioned in the message (absent in events from before it was added). */
  @IsOptional() @IsArray() @ArrayMaxSize(MESSAGE_LIMITS.mentions) @Snowflakes() mentions?: string[];
  @IsOptional() @Snowflake() replyToMessageId?: string;
  /**
   * The channel's audience when the message was sent (absent in events from before it was
   * added: memory then keeps what it knows of the channel, else treats it as public).
   */
  @IsOptional() @IsIn(AUDIENCES) audience?: Audience;
  /**
   * Changes whenever the channel's permission overwrites do (a thread: its parent's); equal
   * keys mean the same audience. Additive to the part 4 contract.
   */
  @IsOptional() @IsString() @MaxLength(AUDIENCE_KEY_MAX) audienceKey?: string;
  /** A thread's parent channel: the channel whose audience the thread has. */
  @IsOptional() @Snowflake() parentChannelId?: string;
  static create(input: unknown) {
    return createValidated(MessageCreated, input);
  }
}

/**
 * `…evt.<g>.<c>.channel.updated`: a channel's audience (or its overwrites, hence its
 * `audienceKey`) changed; the ingest also publishes it for every channel when it connects.
 */
export class ChannelUpdated {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsString() @MaxLength(100) name: string;
  @IsIn(AUDIENCES) audience: Audience;
  @IsOptional() @IsString() @MaxLength(AUDIENCE_KEY_MAX) audienceKey?: string;
  @IsOptional() @Snowflake() parentChannelId?: string;
  static create(input: unknown) {
    return createValidated(ChannelUpdated, input);
  }
}

export class MessageDeleted {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  static create(input: unknown) {
    return createValidated(MessageDeleted, input);
  }
}

export class TypingStarted {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() userId: string;
  @IsISO8601() at: string;
  static create(input: unknown) {
    return createValidated(TypingStarted, input);
  }
}

/** `reaction.added` / `reaction.removed`; `emoji` is the unicode character or `name:id`. */
export class ReactionChanged {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  @Snowflake() userId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) emoji: string;
  /** The reacting user is a bot (learning never counts it). */
  @IsOptional() @IsBoolean() userIsBot?: boolean;
  static create(input: unknown) {
    return createValidated(ReactionChanged, input);
  }
}

export class MemberChanged {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() userId: string;
  @IsBoolean() isBot: boolean;
  static create(input: unknown) {
    return createValidated(MemberChanged, input);
  }
}

// ---------- Discord queries, RPCs and commands ----------

export class ChannelMembersQuery {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(ChannelMembersQuery, input);
  }
}
export interface ChannelMembersResult {
  members: { userId: string; isBot: boolean }[];
}

export class CreateChannelRequest {
  @Snowflake() guildId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) name: string;
  @IsBoolean() private: boolean;
  /** Members who can see a private channel (besides the bot, moderator and server managers). */
  @IsOptional() @IsArray() @ArrayMaxSize(100) @Snowflakes() memberIds?: string[];
  static create(input: unknown) {
    return createValidated(CreateChannelRequest, input);
  }
}
export interface CreateChannelResult {
  channelId: string;
}

export class SendMessageCommand {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsString() @IsNotEmpty() @MaxLength(20000) content: string;
  @IsIn(MESSAGE_PURPOSES) purpose: MessagePurpose;
  @IsOptional() @IsBoolean() deleteAfterSend?: boolean;
  @IsOptional() @Snowflake() replyToMessageId?: string;
  @IsOptional() @AgentId() asAgentId?: string;
  /** Roles the message may ping (their `<@&id>` in the content); none otherwise. */
  @IsOptional() @IsArray() @ArrayMaxSize(10) @Snowflakes() mentionRoleIds?: string[];
  static create(input: unknown) {
    return createValidated(SendMessageCommand, input);
  }
}

export class DeleteMessageCommand {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  static create(input: unknown) {
    return createValidated(DeleteMessageCommand, input);
  }
}

/** Reacts as the bot; `emoji` is the unicode character or `name:id` of a custom emoji. */
export class AddReactionCommand {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) emoji: string;
  static create(input: unknown) {
    return createValidated(AddReactionCommand, input);
  }
}

/** Shows the bot as typing in the channel (Discord shows it for ~10 s or until it sends). */
export class TypingCommand {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(TypingCommand, input);
  }
}

// ---------- Turns ----------

export class CheckTurnRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @AgentId() agentId: string;
  @IsOptional() @Snowflake() messageId?: string;
  static create(input: unknown) {
    return createValidated(CheckTurnRequest, input);
  }
}
export interface CheckTurnResult {
  allowed: boolean;
  currentSpeaker: string | null;
  tmState: TmState;
  mode: ChannelMode;
  dormant: boolean;
  multiMessage: boolean;
}

/**
 * The reply text of an agent with nothing to add: its turn completes empty (as with `NO` or a
 * blank reply, after trimming), and the channel moves on without a message.
 */
export const NO_REPLY = 'NO_REPLY';

export class TurnComplete {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @AgentId() agentId: string;
  @IsString() @IsNotEmpty() @MaxLength(200) runId: string;
  @IsString() @MaxLength(100000) text: string;
  /** The turn the run was allowed for (check-turn's `turnId`); a stale run is then ignored. */
  @IsOptional() @IsString() @MaxLength(200) turnId?: string;
  static create(input: unknown) {
    return createValidated(TurnComplete, input);
  }
}

export class TurnGranted {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @AgentId() agentId: string;
  @IsString() @IsNotEmpty() turnId: string;
  @IsInt() @Min(0) cycle: number;
  @IsString() reason: string;
  static create(input: unknown) {
    return createValidated(TurnGranted, input);
  }
}

// ---------- Agent tools (dirigent.tool.<name>) ----------

abstract class ToolCall {
  @AgentId() callerAgentId: string;
}

export class CreateChatChannelTool extends ToolCall {
  @Snowflake() guildId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) name: string;
  @IsOptional() @IsArray() @ArrayMaxSize(50) @Snowflakes() participants?: string[];
  static create(input: unknown) {
    return createValidated(CreateChatChannelTool, input);
  }
}

export class CreateMembersChannelTool extends ToolCall {
  @Snowflake() guildId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) name: string;
  @IsOptional() @IsArray() @ArrayMaxSize(50) @Snowflakes() members?: string[];
  static create(input: unknown) {
    return createValidated(CreateMembersChannelTool, input);
  }
}

export class CreateDiscussionChannelTool extends ToolCall {
  @Snowflake() callbackGuildId: string;
  @Snowflake() callbackChannelId: string;
  @IsString() @IsNotEmpty() @MaxLength(4000) guide: string;
  @IsArray() @ArrayMaxSize(50) @Snowflakes() participants: string[];
  static create(input: unknown) {
    return createValidated(CreateDiscussionChannelTool, input);
  }
}

export class DiscussionCompleteTool extends ToolCall {
  @Snowflake() discussionChannelId: string;
  /** A file under the workspace's `discussion-summary/`; required unless `summary` is given. */
  @ValidateIf((o: DiscussionCompleteTool) => o.summary === undefined || o.summaryPath !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  summaryPath?: string;
  /** The summary text itself (initiators on other instances); instead of `summaryPath`. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100000) summary?: string;
  static create(input: unknown) {
    return createValidated(DiscussionCompleteTool, input);
  }
}

export class RegisterTool extends ToolCall {
  @Snowflake() discordUserId: string;
  @IsOptional() @IsString() @MaxLength(80) agentName?: string;
  static create(input: unknown) {
    return createValidated(RegisterTool, input);
  }
}

// ---------- Dead letters ----------

/** What the messaging layer records when it gives up on a message. */
export interface DeadLetterRecord {
  stream: string;
  durable: string;
  subject: string;
  streamSeq: number;
  deliveries: number;
  error: string;
  payload: string;
  headers?: Record<string, string[]>;
}
