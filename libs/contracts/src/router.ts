import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ArrayMinSize,
  IsObject,
  ValidateBy,
} from 'class-validator';
import { CONTEXT_STRATEGIES, type ContextStrategy } from './memory';
import { AgentId, SNOWFLAKE_PATTERN, Snowflake } from './rules';
import { LLM_GUILD } from './llm';
import {
  FOLLOWUP_BIASES,
  OUTPUT_SHAPES,
  REASONING_DEPTHS,
  RISK_APPETITES,
  ROUTER_TRIGGERS,
  SEARCH_POSTURES,
  VOICES,
  type RouterTrigger,
} from './dimensions';
import type { LensSwap, RouterDecisionInputs } from './decision-inputs';
import type { RouterToolCall } from './skills';
import { createValidated } from './validation';

// The router's wire: `dirigent.router.*`, `dirigent.admin.disposition.*` and the gateway's
// `dirigent.llm.budget.get` (docs/architecture.md, "Router and orchestrator").

const DISPOSITION_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Envelope types of the router's events and timer commands. */
export const RouterEventTypes = {
  decision: 'router.decision',
  followup: 'router.followup',
  burstStopped: 'router.burst-stopped',
  heldBack: 'router.held-back',
  followupDue: 'router.followup-due',
  speculativeDue: 'router.speculative-due',
  /** A delegated orchestrator job's status (`RouterTaskEvent`). */
  task: 'router.task',
  taskDue: 'router.task-due',
  /** A reminder of the `remind` skill came due (`ReminderDue`). */
  reminderDue: 'router.reminder-due',
} as const;

const oneOf = (values: readonly string[]) =>
  IsIn(values, { message: `$property must be one of: ${values.join(', ')}` });

export class SelfFollowupHintPayload {
  @IsNumber() @Min(0) @Max(1) probability: number;
  @oneOf(FOLLOWUP_BIASES) bias: (typeof FOLLOWUP_BIASES)[number];
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(2)
  @IsInt({ each: true })
  @Min(0, { each: true })
  windowMs: [number, number];
}

/** `dirigent.admin.disposition.upsert`: merged over the disposition with this id. */
export class DispositionUpsertRequest {
  @Matches(DISPOSITION_ID, { message: '$property must be 1-64 lowercase letters, digits, _ or -' })
  id: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100) name?: string;
  @IsOptional() @oneOf(REASONING_DEPTHS) reasoningDepth?: (typeof REASONING_DEPTHS)[number];
  @IsOptional() @oneOf(CONTEXT_STRATEGIES) contextStrategy?: ContextStrategy;
  @IsOptional() @oneOf(VOICES) voice?: (typeof VOICES)[number];
  @IsOptional() @oneOf(OUTPUT_SHAPES) outputShape?: (typeof OUTPUT_SHAPES)[number];
  @IsOptional() @oneOf(SEARCH_POSTURES) searchPosture?: (typeof SEARCH_POSTURES)[number];
  @IsOptional() @oneOf(RISK_APPETITES) riskAppetite?: (typeof RISK_APPETITES)[number];
  @IsOptional() @IsBoolean() speculativeOnly?: boolean;
  @IsOptional()
  @ValidateNested()
  @Type(() => SelfFollowupHintPayload)
  selfFollowupHint?: SelfFollowupHintPayload | null;
  @IsOptional() @IsNumber() @Min(0) @Max(1000) weight?: number;
  static create(input: unknown) {
    return createValidated(DispositionUpsertRequest, input);
  }
}

export class DispositionRemoveRequest {
  @Matches(DISPOSITION_ID, { message: '$property must be a disposition id' }) id: string;
  static create(input: unknown) {
    return createValidated(DispositionRemoveRequest, input);
  }
}

export class DispositionListRequest {
  /** Optional filter (a class without a validated property fails `forbidUnknownValues`). */
  @IsOptional() @Matches(DISPOSITION_ID) id?: string;
  static create(input: unknown) {
    return createValidated(DispositionListRequest, input);
  }
}

export interface DispositionView {
  id: string;
  name: string;
  reasoningDepth: (typeof REASONING_DEPTHS)[number];
  contextStrategy: ContextStrategy;
  voice: (typeof VOICES)[number];
  outputShape: (typeof OUTPUT_SHAPES)[number];
  searchPosture: (typeof SEARCH_POSTURES)[number];
  riskAppetite: (typeof RISK_APPETITES)[number];
  speculativeOnly?: boolean;
  selfFollowupHint?: { probability: number; bias: string; windowMs: [number, number] };
  weight?: number;
}

/** `dirigent.router.decide`: a dry run, no side effects; same input and seed, same choice. */
export class RouterDecideRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsOptional() @AgentId() agentId?: string;
  @IsOptional() @IsString() @MaxLength(4000) content?: string;
  @IsOptional() @Snowflake() authorId?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(SNOWFLAKE_PATTERN, {
    each: true,
    message: 'each of $property must be a Discord snowflake',
  })
  mentions?: string[];
  @IsOptional() @IsBoolean() unprompted?: boolean;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200) seed?: string;
  static create(input: unknown) {
    return createValidated(RouterDecideRequest, input);
  }
}

export interface RouterCandidate {
  dispositionId: string;
  score: number;
}
export interface RouterDimensions {
  reasoningDepth: string;
  contextStrategy: string;
  voice: string;
  outputShape: string;
  searchPosture: string;
  riskAppetite: string;
}
export interface RouterDecideResult {
  candidates: RouterCandidate[];
  chosen: string;
  seed: string;
  dimensions: RouterDimensions;
  /** What the scores read (additive). */
  inputs?: RouterDecisionInputs;
}

/** `dirigent.router.decisions.list`: newest first. */
export class RouterDecisionsListRequest {
  @Snowflake() guildId: string;
  @IsOptional() @Snowflake() channelId?: string;
  @IsOptional() @IsInt() @Min(1) @Max(500) limit?: number;
  @IsOptional() @Matches(DISPOSITION_ID) dispositionId?: string;
  @IsOptional() @oneOf(ROUTER_TRIGGERS) trigger?: RouterTrigger;
  static create(input: unknown) {
    return createValidated(RouterDecisionsListRequest, input);
  }
}

/** `dirigent.router.evt.<g>.<c>.decision` and the rows of `decisions.list`. */
export interface RouterDecision {
  decisionId: string;
  guildId: string;
  channelId: string;
  agentId: string;
  trigger: RouterTrigger;
  inboundMessageId?: string;
  parentDecisionId?: string;
  followupId?: string;
  candidates: RouterCandidate[];
  chosen: string;
  seed: string;
  dimensions: RouterDimensions;
  subagents: string[];
  beats: { text: string; isCorrection?: boolean }[];
  reaction?: string;
  followup?: { followupId: string; bias: string; dueAt: string };
  interrupted?: { atBeat: number; action: 'abort' | 'fold' | 'continue' };
  /** Everything its scores read (additive; older decisions have none): `router.replay` recomputes it. */
  inputs?: RouterDecisionInputs;
  /** The lens differs from the disposition's own: a group present (`room`) or the seeded `off-axis` swap. */
  lensSwap?: LensSwap;
  /** A beat not seen delivered in time: the burst stopped there (`burst-stopped` event). */
  undelivered?: RouterUndelivered;
  /** Why it ran (additive): the reactor job, its trigger, the event or timer that caused it, the run that scheduled it. */
  lineage?: RouterDecisionLineage;
  /** The skill tool calls the synthesizer made (additive; at most 4 rounds a turn). */
  toolCalls?: RouterToolCall[];
  /** The version of the agent's persona the gates, scores and synthesizer read (also in `inputs`). */
  personaVersion?: number;
  /** From the start of the turn to the decision record: reading the room, the tie-break, synthesis. */
  latencyMs: number;
  /**
   * The decision's parts (additive): `gatherMs` reading the room (its queries), `decideMs`
   * the pure decision from those inputs (scoring and the seeded choice), fractional ms.
   */
  timings?: RouterDecisionTimings;
  costUsd: number;
  models: string[];
  /** ISO-8601 */
  at: string;
}

export interface RouterDecisionTimings {
  gatherMs: number;
  decideMs: number;
}

/** A beat the router sent but did not see delivered within `DIRIGENT_ROUTER_BEAT_TIMEOUT_MS`. */
export interface RouterUndelivered {
  /** Its index (0-based): the beats before it were delivered. */
  beat: number;
  /** Beats not sent because of it. */
  withheld: number;
  waitedMs: number;
}

/** `dirigent.router.evt.<g>.<c>.burst-stopped`: a burst stopped at a beat not seen delivered. */
export interface RouterBurstStoppedEvent extends RouterUndelivered {
  decisionId: string;
  agentId: string;
  reason: 'not-delivered';
}

/**
 * `dirigent.router.evt.<g>.<c>.held-back`: the channel's bots reached their run of
 * messages without a human one (`MAX_BOT_RUN`) when an agent was about to post: `sent`
 * messages went out, `withheld` did not; a mention not answered by a message was answered
 * with `reaction` on it instead.
 */
export interface RouterHeldBackEvent {
  decisionId: string;
  agentId: string;
  inboundMessageId?: string;
  sent: number;
  withheld: number;
  reaction?: string;
}

/** `dirigent.router.replay`: recomputes a stored decision from its inputs and seed. */
export class RouterReplayRequest {
  @IsString() @IsNotEmpty() @MaxLength(64) decisionId: string;
  /**
   * Candidate weights (disposition id → weight, 0..1000) the decision is recomputed under
   * instead of the ones it recorded; without them the replay is exact.
   */
  @IsOptional() @IsObject() @IsWeights() weights?: Record<string, number>;
  static create(input: unknown) {
    return createValidated(RouterReplayRequest, input);
  }
}

/** `dirigent.router.whatif`: the guild's last decisions replayed under candidate weights. */
export class RouterWhatIfRequest {
  @Snowflake() guildId: string;
  @IsOptional() @AgentId() agentId?: string;
  @IsInt() @Min(1) @Max(500) last: number;
  @IsObject() @IsWeights() weights: Record<string, number>;
  static create(input: unknown) {
    return createValidated(RouterWhatIfRequest, input);
  }
}
export interface RouterWhatIfResult {
  /** Decisions replayed (those that kept their inputs). */
  decisions: number;
  /** How many would choose another disposition. */
  changed: number;
  /** How often each disposition is chosen now (`before`) and under the weights (`after`). */
  byDisposition: Record<string, { before: number; after: number }>;
}

/** A map of disposition ids to weights within 0..1000. */
function IsWeights() {
  return ValidateBy({
    name: 'isWeights',
    validator: {
      validate: (v: unknown) =>
        !!v &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        Object.entries(v as Record<string, unknown>).every(
          ([k, w]) =>
            DISPOSITION_ID.test(k) &&
            typeof w === 'number' &&
            Number.isFinite(w) &&
            w >= 0 &&
            w <= 1000,
        ),
      defaultMessage: () =>
        '$property must map disposition ids (lowercase letters, digits, _ or -) to numbers 0..1000',
    },
  });
}
export interface RouterReplayResult {
  chosen: string;
  candidates: RouterCandidate[];
  /** Candidates and choice are byte for byte those stored with the decision. */
  identical: boolean;
  dimensions: RouterDimensions;
}

/** `dirigent.router.tasks.cancel`: stops what the orchestrator is running in a channel. */
export class RouterTasksCancelRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  /** Who asked (a member with Manage Channels: the ingest checks it). */
  @Snowflake() requestedBy: string;
  static create(input: unknown) {
    return createValidated(RouterTasksCancelRequest, input);
  }
}
export interface RouterTasksCancelResult {
  /** One per stopped orchestration: the asking message and its running delegations. */
  cancelled: { messageId: string; agentId: string; tasks: string[] }[];
}

/** A decision's lineage (`@dirigent/reactor`'s `Lineage`). */
export interface RouterDecisionLineage {
  job: string;
  trigger: 'timer' | 'event' | 'predicate' | 'all' | 'any';
  /** The envelope id of the event or timer firing. */
  causeId: string;
  /** The decision (or other job run) that scheduled this one. */
  parentId?: string;
  /** A composite trigger's members that held. */
  via?: string[];
}

/** `dirigent.router.evt.<g>.<c>.followup`. */
export interface RouterFollowupEvent {
  followupId: string;
  parentDecisionId: string;
  bias: string;
  dueAt: string;
  status: 'scheduled' | 'fired' | 'aborted';
  reason?: string;
}

/** The timer command of a self-follow-up (internal, `dirigent.timer.fired.router.followup`). */
export class FollowupDue {
  @IsString() @IsNotEmpty() followupId: string;
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(FollowupDue, input);
  }
}

/** The timer command of the speculative trigger (internal, `…timer.fired.router.speculative`). */
export class SpeculativeDue {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @AgentId() agentId: string;
  /** The human message that armed the timer (later ones re-arm it): the trigger's "recent human". */
  @IsOptional() @IsISO8601() humanAt?: string;
  static create(input: unknown) {
    return createValidated(SpeculativeDue, input);
  }
}

/** `dirigent.llm.budget.get`: the guild's daily envelope (`global` when none is set). */
export class LlmBudgetGetRequest {
  @Matches(LLM_GUILD, { message: '$property must be 1-64 letters, digits, _ or -' })
  guildId: string;
  static create(input: unknown) {
    return createValidated(LlmBudgetGetRequest, input);
  }
}
export interface LlmBudgetView {
  /** null: no limit applies. */
  usdPerDay: number | null;
  spentUsd: number;
  remainingUsd: number | null;
  /** ISO-8601: when the current day's period ends. */
  periodEnd: string;
}
