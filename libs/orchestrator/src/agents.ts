import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { binaryProblem, runCli, substituteArgs, MAX_OUTPUT_BYTES } from './cli';
import { agentName } from './prompt';
import { runResearch } from './research';
import type {
  AgentRun,
  ChatPort,
  CodingAgentSettings,
  DelegateAgentType,
  MemoryPort,
} from './types';
import { ensureSessionDir } from './workspace';

/** In the coding agent's working directory: the channel's recent conversation. */
export const CONTEXT_FILE = '.dirigent-context.md';

export interface AgentTask {
  guildId: string;
  channelId?: string;
  sessionId: string;
  task: string;
  /** Caps the run (the coding agent's own `timeoutMs` still applies). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The channel's recent conversation (memory's `live` lens), when there is one. */
  context?: string;
}

export interface AgentDeps {
  chat: ChatPort;
  memory: MemoryPort;
  workspace: string;
  coding?: CodingAgentSettings;
  /** Time allowed to a research or general model call. */
  modelTimeoutMs: number;
}

function failed(type: DelegateAgentType, started: number, message: string): AgentRun {
  return {
    agentName: agentName(type),
    agentType: type,
    status: 'error',
    output: '',
    errorMessage: message,
    durationMs: Date.now() - started,
  };
}

/** The coding agent: the configured CLI in the session's working directory. */
export async function runCodingAgent(deps: AgentDeps, t: AgentTask): Promise<AgentRun> {
  const started = Date.now();
  const cfg = deps.coding;
  if (!cfg?.enabled) return failed('coding', started, 'the coding agent is disabled');
  const problem = binaryProblem(cfg.binary);
  if (problem) return failed('coding', started, `coding CLI unavailable: ${problem}`);
  let cwd: string;
  try {
    cwd = await ensureSessionDir(deps.workspace, t.sessionId);
    // The conversation the task came from, for a CLI that looks (the task itself is the argument).
    await writeFile(join(cwd, CONTEXT_FILE), t.context ?? '');
  } catch (e) {
    return failed('coding', started, (e as Error).message);
  }
  const timeoutMs = Math.min(cfg.timeoutMs, t.timeoutMs ?? cfg.timeoutMs);
  const r = await runCli({
    binary: cfg.binary,
    args: substituteArgs(cfg.args, t.task),
    cwd,
    timeoutMs,
    signal: t.signal,
  });
  const note = r.truncated ? `\n\n[output cut at ${MAX_OUTPUT_BYTES / 1024} KiB]` : '';
  const base = {
    agentName: agentName('coding'),
    agentType: 'coding' as const,
    output: r.stdout + note,
    durationMs: r.durationMs,
    ...(cfg.model ? { model: cfg.model } : {}),
  };
  switch (r.status) {
    case 'success':
      return { ...base, status: 'success' };
    case 'timeout':
      return {
        ...base,
        status: 'timeout',
        output:
          `${r.stdout}${note}\n\n[timed out after ${timeoutMs} ms; the CLI was stopped]`.trim(),
        errorMessage: `timed out after ${timeoutMs} ms`,
      };
    case 'cancelled':
      return { ...base, status: 'error', errorMessage: 'cancelled' };
    case 'error':
      return {
        ...base,
        status: 'error',
        errorMessage:
          r.spawnError ??
          `${cfg.binary} exited with code ${r.exitCode}${r.stderr.trim() ? `:\n${r.stderr.trim()}` : ''}`,
      };
  }
}

async function modelAgent(
  type: 'general',
  deps: AgentDeps,
  t: AgentTask,
  system: string,
): Promise<AgentRun> {
  const started = Date.now();
  try {
    const a = await deps.chat.chat({
      purpose: 'agent',
      guildId: t.guildId,
      timeoutMs: Math.min(deps.modelTimeoutMs, t.timeoutMs ?? deps.modelTimeoutMs),
      body: {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: t.task },
        ],
      },
    });
    return {
      agentName: agentName(type),
      agentType: type,
      status: 'success',
      output: a.content,
      durationMs: Date.now() - started,
      model: a.model,
      ...(a.tokenUsage ? { tokenUsage: a.tokenUsage } : {}),
      ...(a.costUsd !== undefined ? { costUsd: a.costUsd } : {}),
    };
  } catch (e) {
    return failed(type, started, (e as Error).message);
  }
}

/** The research agent: memory search hits as material, then the shared research pass. */
export async function runResearchAgent(deps: AgentDeps, t: AgentTask): Promise<AgentRun> {
  // Memory answers for a channel's audience: a run posted nowhere reads none of it.
  const hits = t.channelId
    ? await deps.memory.search(t.guildId, t.task, t.channelId).catch(() => null)
    : null;
  const conversation = t.context ? `\n\nRecent conversation in the channel:\n${t.context}` : '';
  const material = hits?.length
    ? `Findings from the community's memory (most relevant first):\n${hits.map((h) => `- ${h}`).join('\n')}`
    : 'Memory had nothing on this (or did not answer): say what you do not know.';
  const r = await runResearch(deps.chat, {
    guildId: t.guildId,
    system: `You are a research agent. Answer the task from these findings, citing who said what when it matters; do not invent.\n\n${material}${conversation}`,
    prompt: t.task,
    timeoutMs: Math.min(deps.modelTimeoutMs, t.timeoutMs ?? deps.modelTimeoutMs),
  });
  const { errorMessage, tokenUsage, costUsd, model, ...rest } = r;
  return {
    agentName: agentName('research'),
    agentType: 'research',
    ...rest,
    ...(model ? { model } : {}),
    ...(errorMessage ? { errorMessage } : {}),
    ...(tokenUsage ? { tokenUsage } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

/** The general agent: the channel's live memory context, then the `agent` model. */
export async function runGeneralAgent(deps: AgentDeps, t: AgentTask): Promise<AgentRun> {
  const context =
    t.context ??
    (t.channelId ? await deps.memory.liveContext(t.guildId, t.channelId).catch(() => null) : null);
  const system = context
    ? `You are a helpful assistant in a Discord community. Recent conversation in the channel:\n${context}`
    : 'You are a helpful assistant in a Discord community.';
  return modelAgent('general', deps, t, system);
}
