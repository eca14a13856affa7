import type { DelegateAgentType, RouterToolCall, TaskStatus } from '@dirigent/contracts';
import type { AgentRun } from '@dirigent/orchestrator';

/** One orchestration as the decision log keeps it. */
export interface OrchestrationRecord {
  id: string;
  guildId: string;
  channelId?: string;
  /** `request`: `Subjects.router.orchestrate`; `discord`: a mention of an orchestrator agent. */
  trigger: 'request' | 'discord';
  agentId?: string;
  inboundMessageId?: string;
  /** The orchestrating agent's persona version (its answers passed its gates). */
  personaVersion?: number;
  text: string;
  /** The orchestrator model's own call. */
  decision: AgentRun;
  /** Every delegated run. */
  runs: AgentRun[];
  /** The skill tool calls of the orchestrator model, in order. */
  toolCalls: RouterToolCall[];
  wallMs: number;
  cancelled: boolean;
  /** What was (or, when cancelled, would have been) answered. */
  payloads: { text: string; isError?: boolean }[];
  at: Date;
}

/** Where orchestrations are recorded (the decision log of the control page). */
export abstract class OrchestrationLog {
  abstract record(r: OrchestrationRecord): Promise<void>;
}

/** A delegated job as `router_tasks` keeps it. */
export interface TaskRecord {
  taskId: string;
  guildId: string;
  channelId: string;
  /** The agent that answers when it ends (its notices too). */
  agentId: string;
  agentType: DelegateAgentType;
  inboundMessageId?: string;
  decisionId?: string;
  status: TaskStatus;
  owner: string;
  startedAt: Date;
  endedAt?: Date;
  summary?: string;
}

/** `router_tasks`, and the lease that says whether a task's owner process is alive. */
export abstract class TaskStore {
  abstract create(t: TaskRecord): Promise<void>;
  abstract get(taskId: string): Promise<TaskRecord | null>;
  /** Moves a running task to its end; false when it had already ended. */
  abstract settle(
    taskId: string,
    status: Exclude<TaskStatus, 'running'>,
    summary: string,
    endedAt: Date,
  ): Promise<boolean>;
  /** Running tasks, of one channel when given. */
  abstract running(channelId?: string): Promise<TaskRecord[]>;
  /** Whether a task was ever started for the asking message. */
  abstract startedFor(inboundMessageId: string): Promise<boolean>;
  /** Holds this process's lease for as long as it lives (released when it dies, however). */
  abstract holdLease(owner: string): Promise<void>;
  abstract releaseLease(): Promise<void>;
  /** Whether the process `owner` still holds its lease. */
  abstract alive(owner: string): Promise<boolean>;
}
