import {
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Snowflake } from './rules';
import { createValidated } from './validation';

// The orchestrator's wire: `dirigent.router.orchestrate` (docs/architecture.md, "Router and orchestrator").

/** The delegated agents, as tools `delegate_to_<type>`; `orchestrator` answers directly. */
export const DELEGATE_AGENT_TYPES = ['coding', 'research', 'general'] as const;
export type DelegateAgentType = (typeof DELEGATE_AGENT_TYPES)[number];
export type OrchestratorAgentType = DelegateAgentType | 'orchestrator';
export const AGENT_RUN_STATUSES = ['success', 'error', 'partial', 'timeout'] as const;
export type AgentRunStatus = (typeof AGENT_RUN_STATUSES)[number];

/**
 * `dirigent.router.orchestrate`: answer `text` directly or delegate it. `sessionId`
 * (default: the channel id, else the guild id) names the coding agent's working
 * directory; `timeoutMs` caps every agent run.
 */
export class OrchestrateRequest {
  @Snowflake() guildId: string;
  @IsOptional() @Snowflake() channelId?: string;
  @IsString() @IsNotEmpty() @MaxLength(8000) text: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(128) sessionId?: string;
  @IsOptional() @IsInt() @Min(1) @Max(3_600_000) timeoutMs?: number;
  static create(input: unknown) {
    return createValidated(OrchestrateRequest, input);
  }
}

export interface AgentResult {
  agentName: string;
  agentType: OrchestratorAgentType;
  status: AgentRunStatus;
  output: string;
  errorMessage?: string;
  durationMs: number;
  model?: string;
  tokenUsage?: { input: number; output: number };
}

export interface OrchestratePayload {
  text: string;
  isError?: boolean;
}

export interface OrchestrateResult {
  payloads: OrchestratePayload[];
  agentResults: AgentResult[];
  meta: { durationMs: number; orchestratorModel: string; delegatedAgents: string[] };
}

/** A delegated job's life: `running`, then one of the others, once. */
export const TASK_STATUSES = ['running', 'done', 'failed', 'cancelled', 'timeout'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * `dirigent.router.evt.<g>.<c>.task`: a delegated orchestrator job, run off the channel's
 * lane; published when it starts and when it ends (`summary`: what it answered, or why not).
 */
export class RouterTaskEvent {
  @IsUUID() taskId: string;
  @IsOptional() @IsString() @IsNotEmpty() decisionId?: string;
  @IsIn(DELEGATE_AGENT_TYPES) agentType: DelegateAgentType;
  @IsIn(TASK_STATUSES) status: TaskStatus;
  @IsISO8601() startedAt: string;
  @IsOptional() @IsISO8601() endedAt?: string;
  @IsOptional() @IsString() summary?: string;
  static create(input: unknown) {
    return createValidated(RouterTaskEvent, input);
  }
}

/** The timer command of a task's deadline (internal, `dirigent.timer.fired.router.task`). */
export class TaskDue {
  @IsUUID() taskId: string;
  static create(input: unknown) {
    return createValidated(TaskDue, input);
  }
}
