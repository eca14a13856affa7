import type { ChatPort } from './types';

export interface ResearchCall {
  guildId: string;
  /** Who the researcher is and the material it works from. */
  system: string;
  /** The question: a delegated task, or the message a reply is being prepared for. */
  prompt: string;
  timeoutMs: number;
  maxTokens?: number;
}

export interface ResearchOutcome {
  status: 'success' | 'error';
  /** The findings (empty unless `success`). */
  output: string;
  errorMessage?: string;
  durationMs: number;
  model?: string;
  costUsd?: number;
  tokenUsage?: { input: number; output: number };
}

/**
 * One research pass — the router's research personas and the orchestrator's research agent
 * alike: the material prepared by the caller (memory lenses, search hits) in `system`, then
 * purpose `subagent-research` through the gateway (`timeoutMs` is the call's). Never throws.
 *
 * @example
 * const r = await runResearch(chat, { guildId, system: `Findings:\n${hits}`, prompt: task, timeoutMs: 8000 });
 */
export async function runResearch(chat: ChatPort, c: ResearchCall): Promise<ResearchOutcome> {
  const started = Date.now();
  try {
    const answer = await chat.chat({
      purpose: 'subagent-research',
      guildId: c.guildId,
      timeoutMs: c.timeoutMs,
      body: {
        messages: [
          { role: 'system', content: c.system },
          { role: 'user', content: c.prompt },
        ],
        ...(c.maxTokens ? { max_tokens: c.maxTokens } : {}),
      },
    });
    return {
      status: 'success',
      output: answer.content,
      durationMs: Date.now() - started,
      model: answer.model,
      ...(answer.costUsd !== undefined ? { costUsd: answer.costUsd } : {}),
      ...(answer.tokenUsage ? { tokenUsage: answer.tokenUsage } : {}),
    };
  } catch (e) {
    return {
      status: 'error',
      output: '',
      errorMessage: (e as Error).message,
      durationMs: Date.now() - started,
    };
  }
}
