import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Snowflake } from './rules';
import { createValidated } from './validation';

/**
 * The permission flag names the contract accepts and answers, as discord.js spells them
 * (`PermissionFlagsBits` keys). Kept here so callers validate without discord.js.
 */
export const PERMISSION_FLAGS = [
  'CreateInstantInvite',
  'KickMembers',
  'BanMembers',
  'Administrator',
  'ManageChannels',
  'ManageGuild',
  'AddReactions',
  'ViewAuditLog',
  'PrioritySpeaker',
  'Stream',
  'ViewChannel',
  'SendMessages',
  'SendTTSMessages',
  'ManageMessages',
  'EmbedLinks',
  'AttachFiles',
  'ReadMessageHistory',
  'MentionEveryone',
  'UseExternalEmojis',
  'ViewGuildInsights',
  'Connect',
  'Speak',
  'MuteMembers',
  'DeafenMembers',
  'MoveMembers',
  'UseVAD',
  'ChangeNickname',
  'ManageNicknames',
  'ManageRoles',
  'ManageWebhooks',
  'ManageGuildExpressions',
  'ManageEmojisAndStickers',
  'UseApplicationCommands',
  'RequestToSpeak',
  'ManageEvents',
  'ManageThreads',
  'CreatePublicThreads',
  'CreatePrivateThreads',
  'UseExternalStickers',
  'SendMessagesInThreads',
  'UseEmbeddedActivities',
  'ModerateMembers',
  'ViewCreatorMonetizationAnalytics',
  'UseSoundboard',
  'CreateGuildExpressions',
  'CreateEvents',
  'UseExternalSounds',
  'SendVoiceMessages',
  'SendPolls',
  'UseExternalApps',
  'SetVoiceChannelStatus',
  'PinMessages',
  'BypassSlowmode',
] as const;
export type PermissionFlagName = (typeof PERMISSION_FLAGS)[number];

const flagMessage = {
  each: true,
  message: `each of $property must be a permission flag name (${PERMISSION_FLAGS.slice(0, 3).join(', ')}, …)`,
};

/** Discord's auto-archive durations of a thread, in minutes. */
export const THREAD_ARCHIVE_MINUTES = [60, 1440, 4320, 10080] as const;

/** `dirigent.discord.rpc.create-thread`: a public thread, from a message or standalone. */
export class CreateThreadRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) name: string;
  @IsOptional() @Snowflake() messageId?: string;
  @IsOptional() @IsIn(THREAD_ARCHIVE_MINUTES) autoArchiveMinutes?: number;
  static create(input: unknown) {
    return createValidated(CreateThreadRequest, input);
  }
}
export interface CreateThreadResult {
  threadId: string;
}

/** `dirigent.discord.rpc.pin-message`: pins (or, with `unpin`, unpins) a message. */
export class PinMessageRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  @IsOptional() @IsBoolean() unpin?: boolean;
  static create(input: unknown) {
    return createValidated(PinMessageRequest, input);
  }
}

/** `dirigent.discord.rpc.create-role`: the same name twice answers the existing role. */
export class CreateRoleRequest {
  @Snowflake() guildId: string;
  @IsString() @IsNotEmpty() @MaxLength(100) name: string;
  /** 0xRRGGBB as a number. */
  @IsOptional() @IsInt() @Min(0) @Max(0xffffff) color?: number;
  @IsOptional() @IsBoolean() mentionable?: boolean;
  static create(input: unknown) {
    return createValidated(CreateRoleRequest, input);
  }
}
export interface CreateRoleResult {
  roleId: string;
}

/** `dirigent.discord.rpc.assign-role`: gives (or, with `remove`, takes) a role. */
export class AssignRoleRequest {
  @Snowflake() guildId: string;
  @Snowflake() userId: string;
  @Snowflake() roleId: string;
  @IsOptional() @IsBoolean() remove?: boolean;
  static create(input: unknown) {
    return createValidated(AssignRoleRequest, input);
  }
}

export class PermissionOverwriteInput {
  @Snowflake() id: string;
  @IsIn(['role', 'member']) type: 'role' | 'member';
  @IsArray()
  @ArrayMaxSize(PERMISSION_FLAGS.length)
  @IsIn(PERMISSION_FLAGS, flagMessage)
  allow: PermissionFlagName[];
  @IsArray()
  @ArrayMaxSize(PERMISSION_FLAGS.length)
  @IsIn(PERMISSION_FLAGS, flagMessage)
  deny: PermissionFlagName[];
}

/**
 * `dirigent.discord.rpc.set-channel-permissions`: each listed overwrite replaces that role's
 * or member's overwrite on the channel; overwrites not listed stay as they are.
 */
export class SetChannelPermissionsRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => PermissionOverwriteInput)
  overwrites: PermissionOverwriteInput[];
  static create(input: unknown) {
    return createValidated(SetChannelPermissionsRequest, input);
  }
}

/**
 * `dirigent.discord.rpc.edit-channel`: renames a channel (`name`) and/or moves it under the
 * category called `categoryName` (made when the guild has none of that name).
 */
export class EditChannelRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsOptional() @IsString() @Length(1, 100) @Matches(/^[a-z0-9_-]+$/) name?: string;
  @IsOptional() @IsString() @Length(1, 100) categoryName?: string;
  static create(input: unknown) {
    return createValidated(EditChannelRequest, input);
  }
}
export interface EditChannelResult {
  channelId: string;
  name: string;
  parentId: string | null;
}

/** `dirigent.discord.rpc.create-poll`: a native Discord poll, posted by the bot. */
export class CreatePollRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsString() @IsNotEmpty() @MaxLength(300) question: string;
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(55, { each: true })
  answers: string[];
  @IsInt() @Min(1) @Max(768) durationHours: number;
  @IsOptional() @IsBoolean() multiSelect?: boolean;
  static create(input: unknown) {
    return createValidated(CreatePollRequest, input);
  }
}
export interface CreatePollResult {
  messageId: string;
}

/**
 * `dirigent.discord.query.member-permissions`: the member's effective permissions in the
 * guild, or in one channel (overwrites applied) when `channelId` is given.
 */
export class MemberPermissionsQuery {
  @Snowflake() guildId: string;
  @Snowflake() userId: string;
  @IsOptional() @Snowflake() channelId?: string;
  static create(input: unknown) {
    return createValidated(MemberPermissionsQuery, input);
  }
}
export interface MemberPermissionsResult {
  permissions: PermissionFlagName[];
  /** How the guild shows the member (nickname, else global name, else username). */
  displayName?: string;
  /** The position of the member's highest role (0: only `@everyone`). */
  highestRolePosition?: number;
  /** The guild's owner, above every role. */
  owner?: boolean;
}

/** `dirigent.discord.query.roles`: the guild's roles. */
export class RolesQuery {
  @Snowflake() guildId: string;
  static create(input: unknown) {
    return createValidated(RolesQuery, input);
  }
}
export interface RoleInfo {
  roleId: string;
  name: string;
  /** Higher is more powerful; `@everyone` is 0. */
  position: number;
  permissions: PermissionFlagName[];
  /** Held by an integration (a bot's own role): nobody assigns it. */
  managed: boolean;
}
export interface RolesResult {
  roles: RoleInfo[];
}

/** `dirigent.discord.evt.<g>.guild.joined`: the bot is in a guild. */
export interface GuildJoined {
  guildId: string;
  name: string;
}
