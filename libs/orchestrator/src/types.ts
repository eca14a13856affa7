import type {
  AgentResult,
  DelegateAgentType,
  OrchestrateResult,
  OrchestratorAgentType,
} from '@dirigent/contracts';

export type { AgentResult, DelegateAgentType, OrchestrateResult, OrchestratorAgentType };

export interface CodingAgentSettings {
  enabled: boolean;
  /** The CLI: a name looked up on the PATH, or a path. */
  binary: string;
  /** Its arguments; `{task}` is replaced by the task inside each element (never split). */
  args: string[];
  timeoutMs: number;
  /** Informational: the model the CLI is configured with, for the run log. */
  model?: string;
}

export interface ModelAgentSettings {
  enabled: boolean;
}

export interface OrchestratorSettings {
  parallelExecution: boolean;
  maxParallelAgents: number;
  agents: {
    coding?: CodingAgentSettings;
    research?: ModelAgentSettings;
    general?: ModelAgentSettings;
  };
  /** Root of the coding agent's per-session working directories. */
  workspace: string;
}

/** One OpenAI tool call, as the model returned it. */
export interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}

/** A chat completion through the gateway, reduced to what the orchestrator reads. */
export interface ChatAnswer {
  content: string;
  toolCalls: ToolCall[];
  /** The model that answered (after fallbacks). */
  model: string;
  tokenUsage?: { input: number; output: number };
  costUsd?: number;
}

export interface ChatCall {
  /** The gateway purpose (the synthesizer's tool rounds use `synth-*`). */
  purpose: 'orchestrate' | 'subagent-research' | 'agent' | 'synth-low' | 'synth-mid' | 'synth-high';
  guildId: string;
  /** The OpenAI chat body (without `model`: the purpose routes). */
  body: Record<string, unknown>;
  timeoutMs: number;
}

/** The model gateway (`Subjects.llm.chat`). Throws when the call fails. */
export interface ChatPort {
  chat(call: ChatCall): Promise<ChatAnswer>;
}

/** Memory (`dirigent.memory.*`); `null` when memory does not answer. */
export interface MemoryPort {
  /**
   * Hits as lines, only what the audience of `forChannelId` (where the answer is posted)
   * may see.
   */
  search(guildId: string, query: string, forChannelId: string): Promise<string[] | null>;
  liveContext(guildId: string, channelId: string): Promise<string | null>;
}

/** An agent run with what the run log keeps beyond the wire result. */
export interface AgentRun extends AgentResult {
  costUsd?: number;
  /** The delegated task (absent for a direct answer). */
  task?: string;
}
