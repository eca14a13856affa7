import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { createValidated } from './validation';

/** Guild ids of the model gateway: Discord snowflakes, or a token-safe name such as `global`. */
export const LLM_GUILD = /^[A-Za-z0-9_-]{1,64}$/;
const Guild = () =>
  Matches(LLM_GUILD, { message: '$property must be 1-64 letters, digits, _ or -' });

/**
 * The purposes Dirigent's own services ask the model gateway for (`purpose` below): the
 * one list every shipped gateway configuration must route (a test calls each through the
 * gateway with each configuration). Operators may route others too.
 */
export const LLM_PURPOSES = [
  /** router: breaks a tight top pair of speaking dispositions */
  'router-classify',
  /** router and orchestrator: one research sub-agent over a memory lens */
  'subagent-research',
  /** router: the synthesizer, by reasoning depth */
  'synth-low',
  'synth-mid',
  'synth-high',
  /** orchestrator (Molt): answer directly or delegate */
  'orchestrate',
  /** orchestrator's general agent; the playground's demo agents */
  'agent',
  /** memory: highlights and dossiers */
  'extract',
  /** memory: embeddings (`dirigent.llm.embed`) */
  'embed',
  /** memory: an epoch's summary */
  'epoch-summarize',
  /** memory: moment checks (a self-disclosure confirmed, a sampled message scored) */
  'memory',
  /** memory: a search's best hits reordered (when `DIRIGENT_MEMORY_RERANK` is on) */
  'rerank',
] as const;
export type LlmPurpose = (typeof LLM_PURPOSES)[number];

/**
 * `dirigent.llm.chat`: an OpenAI chat completion request (`request`, validated by the
 * gateway field by field) on behalf of a guild (`global` when omitted) and, optionally,
 * a purpose (which wins over `request.model`, and stands in for it when it is omitted). With `request.stream` and `streamSubject`, every chunk is
 * published to `streamSubject` (`{ chunk }`, then `{ done: true }` or `{ error }`) and the
 * reply carries the routing summary; otherwise the reply is `{ completion, model, ... }`.
 */
export class LlmChatRequest {
  @IsOptional() @Guild() guildId?: string;
  @IsOptional() @IsString() @MaxLength(64) purpose?: string;
  @IsObject() request: Record<string, unknown>;
  @IsOptional() @IsString() @MaxLength(256) streamSubject?: string;
  static create(input: unknown) {
    return createValidated(LlmChatRequest, input);
  }
}

/** `dirigent.llm.embed`: an OpenAI embeddings request on behalf of a guild and purpose. */
export class LlmEmbedRequest {
  @IsOptional() @Guild() guildId?: string;
  @IsOptional() @IsString() @MaxLength(64) purpose?: string;
  @IsObject() request: Record<string, unknown>;
  static create(input: unknown) {
    return createValidated(LlmEmbedRequest, input);
  }
}

/** `dirigent.llm.usage` (stream DIRIGENT_LLM_USAGE), envelope type `llm.usage`: one ledger row. */
export class LlmUsageRecorded {
  @IsString() id: string;
  @IsString() at: string;
  @Guild() guildId: string;
  @IsOptional() @IsString() purpose: string | null;
  @IsIn(['chat', 'embed']) kind: 'chat' | 'embed';
  @IsBoolean() stream: boolean;
  @IsString() requestedModel: string;
  @IsOptional() @IsString() model: string | null;
  @IsOptional() @IsString() provider: string | null;
  @IsInt() inputTokens: number;
  @IsInt() outputTokens: number;
  @IsNumber() reservedUsd: number;
  @IsNumber() costUsd: number;
  @IsInt() latencyMs: number;
  @IsIn(['ok', 'budget_exhausted', 'failed', 'rejected', 'aborted'])
  outcome: 'ok' | 'budget_exhausted' | 'failed' | 'rejected' | 'aborted';
  @IsOptional() @IsString() error?: string;
  @IsArray() @IsString({ each: true }) fallbacks: string[];
  @IsInt() attempts: number;
}

export const LLM_USAGE_EVENT = 'llm.usage';

/**
 * `dirigent.llm.usage`, envelope type `llm.usage.batch`: the ledger rows of the calls one
 * gateway answered close together, in one message (one JetStream write and ack for all).
 */
export class LlmUsageBatch {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => LlmUsageRecorded)
  records: LlmUsageRecorded[];
}

export const LLM_USAGE_BATCH_EVENT = 'llm.usage.batch';
