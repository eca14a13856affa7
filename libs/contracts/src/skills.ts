import { Type } from 'class-transformer';
import {
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { AgentId, Snowflake } from './rules';
import { createValidated } from './validation';

// The skills' wire: `dirigent.router.skills.list`, `dirigent.router.skill.invoke`
// (docs/architecture.md, "Skills").

/** `direct` runs at once; `confirm` becomes a proposal in the mod channel. */
export const SKILL_COST_CLASSES = ['direct', 'confirm'] as const;
export type SkillCostClass = (typeof SKILL_COST_CLASSES)[number];

/** What a skill may touch (informational, listed by `skills.list`). */
export const SKILL_PERMISSIONS = [
  'memory:read',
  'discord:post',
  'discord:threads',
  'discord:pins',
  'discord:channels',
  'discord:roles',
] as const;
export type SkillPermission = (typeof SKILL_PERMISSIONS)[number];

/** A skill or tool id: what an OpenAI function name allows. */
export const SKILL_ID_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export interface SkillListing {
  id: string;
  description: string;
  permissions: SkillPermission[];
  costClass: SkillCostClass;
  tools: string[];
}
export interface SkillsListResult {
  skills: SkillListing[];
}

export class SkillActor {
  @IsOptional() @AgentId() agentId?: string;
  @IsOptional() @Snowflake() userId?: string;
}

/** `dirigent.router.skill.invoke`: `args` are checked against the tool's JSON schema. */
export class SkillInvokeRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsString()
  @Matches(SKILL_ID_PATTERN, { message: '$property must be a skill id' })
  skillId: string;
  @IsString() @IsNotEmpty() @MaxLength(64) tool: string;
  @IsObject() args: Record<string, unknown>;
  @IsObject() @ValidateNested() @Type(() => SkillActor) actor: SkillActor;
  /** Why (shown on a proposal); optional. */
  @IsOptional() @IsString() @MaxLength(2000) reason?: string;
  static create(input: unknown) {
    return createValidated(SkillInvokeRequest, input);
  }
}

/**
 * `refused`: the asker may not have it done (no right in that channel, a privileged role, a
 * proposal limit reached); `reason` says why, in words a member reads.
 */
export type SkillInvokeResult =
  | { status: 'done'; result: unknown }
  | { status: 'proposed'; proposalId: string }
  | { status: 'refused'; reason: string };

/** How a tool call of a turn ended: done, proposed, refused (in words), or failed (`error`). */
export const TOOL_CALL_STATUSES = ['done', 'proposed', 'refused', 'error'] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** One tool call of a turn, as the decision records it. */
export interface RouterToolCall {
  skillId: string;
  tool: string;
  args: unknown;
  status: ToolCallStatus;
  proposalId?: string;
  /** On whose behalf it ran: the turn's agent and the member whose message it answered. */
  requestedBy?: { agentId?: string; userId?: string };
  /** Why it was refused (a `refused` call). */
  reason?: string;
  /** What the skill answered (a `done` call), e.g. dice rolls. */
  result?: unknown;
  /** Why it failed (`BAD_REQUEST args.notation: …`). */
  error?: string;
  ms: number;
}

export const isToolCallStatus = (v: unknown): v is ToolCallStatus =>
  (TOOL_CALL_STATUSES as readonly unknown[]).includes(v);

// Reminders of the `remind` skill: `dirigent.router.reminders.list`, `.cancel`.

/** A reminder id (`rem-` and 24 hex digits). */
export const REMINDER_ID_PATTERN = /^rem-[0-9a-f]{24}$/;
export const REMINDER_STATUSES = ['scheduled', 'fired', 'cancelled'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

export interface ReminderView {
  reminderId: string;
  guildId: string;
  channelId: string;
  /** The member who asked (mentioned when due for `target: 'me'`). */
  userId?: string;
  target: 'me' | 'channel';
  text: string;
  dueAt: string;
  status: ReminderStatus;
  createdAt: string;
}

/** `dirigent.router.reminders.list`: a guild's scheduled reminders, one member's with `userId`. */
export class RemindersListRequest {
  @Snowflake() guildId: string;
  @IsOptional() @Snowflake() userId?: string;
  static create(input: unknown) {
    return createValidated(RemindersListRequest, input);
  }
}
export interface RemindersListResult {
  reminders: ReminderView[];
}

/** `dirigent.router.reminders.cancel`: cancelling one already cancelled is fine. */
export class ReminderCancelRequest {
  @IsString()
  @Matches(REMINDER_ID_PATTERN, { message: '$property must be a reminder id' })
  reminderId: string;
  static create(input: unknown) {
    return createValidated(ReminderCancelRequest, input);
  }
}
export interface ReminderCancelResult {
  reminderId: string;
  status: ReminderStatus;
}

/** The timer command of a reminder (internal, `dirigent.timer.fired.router.reminder`). */
export class ReminderDue {
  @IsString()
  @Matches(REMINDER_ID_PATTERN, { message: '$property must be a reminder id' })
  reminderId: string;
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(ReminderDue, input);
  }
}
