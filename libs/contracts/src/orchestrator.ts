import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
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
