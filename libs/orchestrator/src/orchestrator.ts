import type { RouterToolCall } from '@dirigent/contracts';
import { runSkillLoop, type LoopMessage, type TurnSkills } from '@dirigent/skills';
import { aggregateResults } from './aggregate';
import {
  runCodingAgent,
  runGeneralAgent,
  runResearchAgent,
  type AgentDeps,
  type AgentTask,
} from './agents';
import { mapLimit } from './limit';
import {
  agentName,
  delegationTools,
  enabledAgents,
  orchestratorSystemPrompt,
  TOOL_PREFIX,
} from './prompt';
import type {
  AgentRun,
  ChatAnswer,
  ChatPort,
  DelegateAgentType,
  MemoryPort,
  OrchestrateResult,
  OrchestratorSettings,
  ToolCall,
} from './types';

export interface OrchestrateInput {
  guildId: string;
  channelId?: string;
  text: string;
  sessionId?: string;
  /** The agent answering (the actor of its skill calls). */
  agentId?: string;
  /** The member asking (the message's author): the skill calls run with their rights. */
  userId?: string;
  /** Seeds the skill calls (dice) and their side effects' ids: a redelivery repeats them. */
  seed?: string;
  timeoutMs?: number;
  /** Aborting stops the running agents (the coding CLI is killed). */
  signal?: AbortSignal;
  /** Called once the orchestrator has chosen to delegate, before the agents run. */
  onDelegate?: (types: DelegateAgentType[]) => void;
}

/** The reply plus what the run log keeps: the orchestrator's own call and every agent run. */
export interface Orchestration {
  result: OrchestrateResult;
  /** The orchestrator model's call (its decision). */
  decision: AgentRun;
  /** The delegated runs (empty for a direct answer). */
  runs: AgentRun[];
  /** The skill tool calls the orchestrator model made, in order (what the decision records). */
  toolCalls: RouterToolCall[];
  /** Wall time of the whole orchestration. */
  wallMs: number;
}

/**
 * What the orchestrator model chose: a direct answer (the whole orchestration), or the
 * delegations still to run, with the channel's conversation they are given as context.
 */
export type OrchestrationPlan =
  | { kind: 'direct'; orchestration: Orchestration }
  | {
      kind: 'delegate';
      decision: AgentRun;
      model: string;
      calls: Delegation[];
      toolCalls: RouterToolCall[];
      context?: string;
      started: number;
    };

/** Time allowed to the orchestrator's own model call. */
const DECISION_TIMEOUT_MS = 120_000;

/** One tool call of the orchestrator's answer: the agent it names and its task. */
export interface Delegation {
  type: DelegateAgentType | undefined;
  name: string;
  task: string | undefined;
}

function parseCall(call: ToolCall, enabled: DelegateAgentType[]): Delegation {
  const name = call.function.name;
  const type = enabled.find((t) => `${TOOL_PREFIX}${t}` === name);
  let task: string | undefined;
  try {
    const args = JSON.parse(call.function.arguments || '{}') as { task?: unknown };
    if (typeof args.task === 'string' && args.task.trim()) task = args.task;
  } catch {
    task = undefined;
  }
  return { type, name, task };
}

const isDelegation = (c: ToolCall) => c.function.name.startsWith(TOOL_PREFIX);

function toWire(run: AgentRun): OrchestrateResult['agentResults'][number] {
  const { costUsd: _cost, task: _task, ...wire } = run;
  return wire;
}

export interface OrchestratorOptions {
  /** Time allowed to the orchestrator's own model calls. */
  modelTimeoutMs?: number;
  /** The skill catalog, offered as tools next to the delegations when a channel is known. */
  skills?: TurnSkills;
}

/**
 * The Moltbot orchestrator: the model (purpose `orchestrate`) sees the enabled agents as
 * `delegate_to_<type>` tools and, with `skills`, the skill catalog. Skill calls run in the
 * request's guild and channel and their results go back to the model (at most 4 rounds,
 * each call recorded); an answer without a delegation is the direct answer; delegations
 * run in parallel (at most `maxParallelAgents` at once) and are aggregated as the seed's
 * `aggregateResults`, without a further model round.
 *
 * @example
 * const o = new Orchestrator(settings, gatewayChat, memory, { skills });
 * const { result } = await o.run({ guildId, channelId, text: 'write a fizzbuzz in rust' });
 */
export class Orchestrator {
  constructor(
    private readonly settings: OrchestratorSettings,
    private readonly chat: ChatPort,
    private readonly memory: MemoryPort,
    private readonly opts: OrchestratorOptions = {},
  ) {}

  private get modelTimeoutMs(): number {
    return this.opts.modelTimeoutMs ?? DECISION_TIMEOUT_MS;
  }

  async run(input: OrchestrateInput): Promise<Orchestration> {
    const plan = await this.plan(input);
    if (plan.kind === 'direct') return plan.orchestration;
    input.onDelegate?.(plan.calls.flatMap((c) => (c.type ? [c.type] : [])));
    const limit = this.settings.parallelExecution ? this.settings.maxParallelAgents : 1;
    const runs = await mapLimit(plan.calls, limit, (c) => this.delegate(c, input, plan.context));
    return this.finish(plan, runs);
  }

  /**
   * The orchestrator model's call, with the channel's recent conversation (memory's `live`
   * lens) in view: a direct answer is the whole orchestration; otherwise the delegations.
   */
  async plan(input: OrchestrateInput): Promise<OrchestrationPlan> {
    const started = Date.now();
    const enabled = enabledAgents(this.settings);
    const context = input.channelId
      ? ((await this.memory.liveContext(input.guildId, input.channelId).catch(() => null)) ??
        undefined)
      : undefined;
    const decided = await this.decide(input, enabled, context);
    const model = decided.answer?.model ?? 'unknown';
    const { toolCalls } = decided;
    const delegations = decided.answer?.toolCalls.filter(isDelegation) ?? [];
    if (!decided.answer || delegations.length === 0 || decided.run.status !== 'success') {
      const run = decided.run;
      const result = aggregateResults([toWire(run)], model);
      // Nothing was delegated: `delegatedAgents` lists only coding, research and general.
      result.meta.delegatedAgents = [];
      return {
        kind: 'direct',
        orchestration: {
          result,
          decision: run,
          runs: [],
          toolCalls,
          wallMs: Date.now() - started,
        },
      };
    }
    const calls = delegations.map((c) => parseCall(c, enabled));
    return { kind: 'delegate', decision: decided.run, model, calls, toolCalls, context, started };
  }

  /** The delegations' runs aggregated as the seed's `aggregateResults`, no second model round. */
  finish(plan: Extract<OrchestrationPlan, { kind: 'delegate' }>, runs: AgentRun[]): Orchestration {
    return {
      result: aggregateResults(runs.map(toWire), plan.model),
      decision: plan.decision,
      runs,
      toolCalls: plan.toolCalls,
      wallMs: Date.now() - plan.started,
    };
  }

  private async decide(
    input: OrchestrateInput,
    enabled: DelegateAgentType[],
    context: string | undefined,
  ): Promise<{ answer?: ChatAnswer; run: AgentRun; toolCalls: RouterToolCall[] }> {
    const started = Date.now();
    const base = { agentName: 'orchestrator', agentType: 'orchestrator' as const };
    const skills = input.channelId ? this.opts.skills : undefined;
    const tools = [...delegationTools(enabled), ...(skills?.tools() ?? [])];
    const system = orchestratorSystemPrompt(enabled, Boolean(skills));
    const messages: LoopMessage[] = [
      {
        role: 'system',
        content: context
          ? `${system}\n\n## Recent conversation in the channel\n${context}`
          : system,
      },
      { role: 'user', content: input.text },
    ];
    const chat = (msgs: LoopMessage[], final: boolean) =>
      this.chat.chat({
        purpose: 'orchestrate',
        guildId: input.guildId,
        timeoutMs: Math.min(this.modelTimeoutMs, input.timeoutMs ?? this.modelTimeoutMs),
        body: {
          messages: msgs,
          ...(tools.length
            ? { tools, tool_choice: final ? 'none' : 'auto', parallel_tool_calls: true }
            : {}),
        },
      });
    try {
      let answer: ChatAnswer;
      let costUsd: number | undefined;
      let toolCalls: RouterToolCall[] = [];
      if (skills) {
        const out = await runSkillLoop({
          skills,
          turn: {
            guildId: input.guildId,
            channelId: input.channelId!,
            agentId: input.agentId,
            userId: input.userId,
            seed: input.seed ?? `orchestrate:${input.channelId}:${input.text}`,
            reason: input.text.slice(0, 2000),
          },
          messages,
          owns: (c) => !isDelegation(c),
          chat,
        });
        answer = out.answer as ChatAnswer;
        costUsd = out.costUsd;
        toolCalls = out.toolCalls;
      } else {
        answer = await chat(messages, false);
        costUsd = answer.costUsd;
      }
      return {
        answer,
        toolCalls,
        run: {
          ...base,
          status: 'success',
          output: answer.content,
          durationMs: Date.now() - started,
          model: answer.model,
          ...(answer.tokenUsage ? { tokenUsage: answer.tokenUsage } : {}),
          ...(costUsd !== undefined ? { costUsd } : {}),
        },
      };
    } catch (e) {
      return {
        toolCalls: [],
        run: {
          ...base,
          status: 'error',
          output: '',
          errorMessage: (e as Error).message,
          durationMs: Date.now() - started,
        },
      };
    }
  }

  /** Runs one delegation (its agent, with the conversation as context); never throws. */
  async delegate(c: Delegation, input: OrchestrateInput, context?: string): Promise<AgentRun> {
    const t: AgentTask = {
      guildId: input.guildId,
      channelId: input.channelId,
      sessionId: input.sessionId ?? input.channelId ?? input.guildId,
      task: c.task ?? '',
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      ...(context ? { context } : {}),
    };
    const deps: AgentDeps = {
      chat: this.chat,
      memory: this.memory,
      workspace: this.settings.workspace,
      coding: this.settings.agents.coding,
      modelTimeoutMs: this.modelTimeoutMs,
    };
    if (!c.type || !c.task) {
      const type = c.type ?? 'general';
      return {
        agentName: c.type ? agentName(c.type) : c.name,
        agentType: type,
        status: 'error',
        output: '',
        errorMessage: c.type
          ? `${c.name} was called without a task`
          : `${c.name} is not an enabled agent`,
        durationMs: 0,
        task: t.task,
      };
    }
    const run =
      c.type === 'coding'
        ? await runCodingAgent(deps, t)
        : c.type === 'research'
          ? await runResearchAgent(deps, t)
          : await runGeneralAgent(deps, t);
    return { ...run, task: t.task };
  }
}
