import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsObject,
  ValidateNested,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { AgentId, Snowflake } from './rules';
import { createValidated } from './validation';

// ---------- Steward: proposals ----------

export const PROPOSAL_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'executed',
  'failed',
] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** Proposal ids appear in subjects (`dirigent.es.proposal.<id>`): token-safe. */
export const PROPOSAL_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ProposalId = () =>
  Matches(PROPOSAL_ID_PATTERN, { message: '$property must be 1-64 letters, digits, _ or -' });

export interface ProposalRequester {
  agentId?: string;
  userId?: string;
}

/** `dirigent.steward.evt.<g>.proposal` (on every change) and the rows of `proposals.list`. */
export interface ProposalView {
  proposalId: string;
  guildId: string;
  /** The channel the call came from. */
  channelId: string;
  skillId: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
  requestedBy: ProposalRequester;
  status: ProposalStatus;
  /** The Discord user whose ✅ or ❌ (or admin decide) settled it. */
  decidedBy?: string;
  result?: unknown;
  error?: string;
  /** The proposal's message in the mod channel, once posted. */
  modChannelId?: string;
  messageId?: string;
  createdAt: string;
  expiresAt: string;
  /** When this change happened. */
  at: string;
}

export class ProposalsListRequest {
  @Snowflake() guildId: string;
  @IsOptional()
  @IsIn(PROPOSAL_STATUSES, { message: `$property must be one of: ${PROPOSAL_STATUSES.join(', ')}` })
  status?: ProposalStatus;
  static create(input: unknown) {
    return createValidated(ProposalsListRequest, input);
  }
}
export interface ProposalsListResult {
  proposals: ProposalView[];
}

/** `dirigent.admin.steward.decide`: the same rule as a reaction (the actor needs ManageGuild). */
export class StewardDecideRequest {
  @ProposalId() proposalId: string;
  @IsBoolean() approve: boolean;
  @Snowflake() actorUserId: string;
  static create(input: unknown) {
    return createValidated(StewardDecideRequest, input);
  }
}

/** The data of a proposal's expiry timer (`dirigent.timer.fired.router.proposal-expiry`). */
export class ProposalExpiryDue {
  @ProposalId() proposalId: string;
  @IsISO8601() expiresAt: string;
  static create(input: unknown) {
    return createValidated(ProposalExpiryDue, input);
  }
}

export class ProposalRequesterPayload implements ProposalRequester {
  @IsOptional() @AgentId() agentId?: string;
  @IsOptional() @Snowflake() userId?: string;
}

/** A proposal as the skill system hands it to the steward (a `confirm`-class call). */
export class ProposeRequest {
  /** Given by a caller that may retry: the same id proposes once. */
  @IsOptional() @ProposalId() proposalId?: string;
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsString() @IsNotEmpty() @MaxLength(64) skillId: string;
  @IsString() @IsNotEmpty() @MaxLength(64) tool: string;
  @IsObject() args: Record<string, unknown>;
  @IsString() @MaxLength(2000) reason: string;
  @IsObject()
  @ValidateNested()
  @Type(() => ProposalRequesterPayload)
  requestedBy: ProposalRequesterPayload;
  static create(input: unknown) {
    return createValidated(ProposeRequest, input);
  }
}

/** Envelope types of the steward. */
export const StewardEventTypes = {
  proposal: 'steward.proposal',
  proposalExpiryDue: 'steward.proposal-expiry-due',
  upkeepSurveyDue: 'steward.upkeep-survey-due',
} as const;

/**
 * A guild's upkeep survey (`dirigent.timer.fired.router.upkeep-survey`): armed by a human
 * message, at most one per guild and `DIRIGENT_UPKEEP_SURVEY_MS` period.
 */
export class UpkeepSurveyDue {
  @Snowflake() guildId: string;
  static create(input: unknown) {
    return createValidated(UpkeepSurveyDue, input);
  }
}
