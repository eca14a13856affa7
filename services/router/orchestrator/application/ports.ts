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
  text: string;
  /** The orchestrator model's own call. */
  decision: AgentRun;
  /** Every delegated run. */
  runs: AgentRun[];
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
