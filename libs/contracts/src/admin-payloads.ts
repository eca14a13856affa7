import {
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { AgentId, INSTANCE_PATTERN, INSTANCE_RULE, Snowflake } from './rules';
import type { ChannelMode, TmState } from './payloads';
import { createValidated } from './validation';

// ---------- Admin ----------

export class IdentityUpsertRequest {
  @Snowflake() discordUserId: string;
  @AgentId() agentId: string;
  @IsOptional() @IsString() @MaxLength(80) agentName?: string;
  /** The instance the agent is bound to (default `master`): only it may act as the agent. */
  @IsOptional()
  @Matches(INSTANCE_PATTERN, { message: `$property must be ${INSTANCE_RULE}` })
  instance?: string;
  static create(input: unknown) {
    return createValidated(IdentityUpsertRequest, input);
  }
}

export class IdentityRemoveRequest {
  @IsOptional() @Snowflake() discordUserId?: string;
  @IsOptional() @AgentId() agentId?: string;
  static create(input: unknown) {
    return createValidated(IdentityRemoveRequest, input);
  }
}

export class IdentityListRequest {
  /** Optional filter. (A class without any validated property fails `forbidUnknownValues`.) */
  @IsOptional() @Snowflake() discordUserId?: string;
  static create(input: unknown) {
    return createValidated(IdentityListRequest, input ?? {});
  }
}
export interface IdentityEntry {
  discordUserId: string;
  agentId: string;
  agentName: string | null;
  /** The relay instance the agent is bound to; absent: the master. */
  instance?: string;
}

export class SetModeRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  /** Not `@IsIn`: an unknown mode is the domain's `INVALID_MODE`, not `BAD_REQUEST`. */
  @IsString() @IsNotEmpty() mode: string;
  static create(input: unknown) {
    return createValidated(SetModeRequest, input);
  }
}

export class SetShuffleRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsOptional() @IsBoolean() shuffle: boolean | null;
  static create(input: unknown) {
    return createValidated(SetShuffleRequest, input);
  }
}

export class ChannelGetRequest {
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(ChannelGetRequest, input);
  }
}

/** `dirigent.admin.channel.advance`: skip the current speaker (a stalled or absent agent). */
export class ChannelAdvanceRequest {
  @Snowflake() channelId: string;
  @IsOptional() @Snowflake() guildId?: string;
  /** Who asked, for the notice and the log (a Discord user id or an admin name). */
  @IsOptional() @IsString() @MaxLength(100) requestedBy?: string;
  static create(input: unknown) {
    return createValidated(ChannelAdvanceRequest, input);
  }
}

/** `dirigent.discord.query.self` → the moderator bot's own Discord user. */
export interface DiscordSelfResult {
  userId: string;
}
export interface ChannelView {
  mode: ChannelMode;
  tmState: TmState;
  currentSpeaker: string | null;
  speakers: string[];
  dormant: boolean;
  multiMessage: boolean;
  shuffle: boolean | null;
  discussion?: {
    initiatorAgentId: string;
    callbackGuildId: string;
    callbackChannelId: string;
    archived: boolean;
    summaryPath?: string;
  };
}

// ---------- Turn coordinator admin (additive) ----------

export const WAKE_MODES = ['granted', 'discord', 'both'] as const;
/** How a grant reaches the next speaker: the turn-granted event, a Discord ping, or both. */
export type WakeMode = (typeof WAKE_MODES)[number];

export class SetWakeModeRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsIn(WAKE_MODES) wakeMode: WakeMode;
  static create(input: unknown) {
    return createValidated(SetWakeModeRequest, input);
  }
}

export class IdentityRescanRequest {
  /** Which import to run again; both by default. */
  @IsOptional() @IsIn(['file', 'padded-cell']) source?: 'file' | 'padded-cell';
  static create(input: unknown) {
    return createValidated(IdentityRescanRequest, input ?? {});
  }
}

/**
 * `dirigent.turn.slash.*`: a channel command a member gave in Discord. The coordinator acts
 * only when `canManageChannels` (read by the ingest from the interaction) allows it; reading
 * the status needs no permission.
 */
export class SlashChannelRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  /** The member who typed the command. */
  @Snowflake() userId: string;
  @IsBoolean() canManageChannels: boolean;
  /** `set-mode` only; an unknown mode is the domain's `INVALID_MODE`. */
  @IsOptional() @IsString() @IsNotEmpty() mode?: string;
  /** `set-shuffle` only: on, off, or null for the default. */
  @IsOptional() @IsBoolean() shuffle?: boolean | null;
  static create(input: unknown) {
    return createValidated(SlashChannelRequest, input);
  }
}

/** `dirigent.turn.agent-names` → `{ names: [{ agentId, agentName }] }`. */
export interface AgentNamesResult {
  names: { agentId: string; agentName: string | null }[];
}
