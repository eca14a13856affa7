import type { RouterToolCall } from '@dirigent/contracts';
import type { OpenAiTool } from './registry';

/** The most tool rounds a turn gets (the contract's limit). */
export const MAX_TOOL_ROUNDS = 4;

/** One OpenAI tool call as a model returns it. */
export interface ModelToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}

/** An OpenAI chat message of a tool conversation. */
export type LoopMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ModelToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface LoopAnswer {
  content: string;
  toolCalls: ModelToolCall[];
  model: string;
  costUsd?: number;
}

export interface ToolLoopOptions {
  /** One model call; `final` asks for text only (`tool_choice: 'none'`). */
  chat(messages: LoopMessage[], final: boolean): Promise<LoopAnswer>;
  /** Runs one tool call and gives what the model reads back (a result or an error, as text). */
  execute(call: ModelToolCall, round: number): Promise<string>;
  messages: LoopMessage[];
  maxRounds?: number;
  /**
   * The calls this loop runs (default: all). An answer with a call it does not own (the
   * orchestrator's delegations) ends the loop once its owned calls have run: the caller
   * handles the rest.
   */
  owns?: (call: ModelToolCall) => boolean;
}

export interface ToolLoopResult {
  /** The model's last answer (its text is the reply). */
  answer: LoopAnswer;
  rounds: number;
  models: string[];
  costUsd: number;
}

/**
 * The model ↔ tools conversation: while the model calls tools, run them and give it their
 * results, at most `maxRounds` times; the call after the last round is asked for text only.
 * A call the executor refuses is an error result the model reads, never an exception.
 *
 * @example
 * const { answer } = await runToolLoop({ chat, execute, messages: [system, user] });
 */
export async function runToolLoop(o: ToolLoopOptions): Promise<ToolLoopResult> {
  const max = o.maxRounds ?? MAX_TOOL_ROUNDS;
  const messages = [...o.messages];
  const models: string[] = [];
  let costUsd = 0;
  let rounds = 0;
  const ask = async (final: boolean) => {
    const a = await o.chat(messages, final);
    models.push(a.model);
    costUsd += a.costUsd ?? 0;
    return a;
  };
  const owns = o.owns ?? (() => true);
  let answer = await ask(max === 0);
  while (answer.toolCalls.some(owns) && rounds < max) {
    messages.push({
      role: 'assistant',
      content: answer.content || null,
      tool_calls: answer.toolCalls,
    });
    for (const call of answer.toolCalls.filter(owns)) {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: await o.execute(call, rounds),
      });
    }
    rounds += 1;
    if (!answer.toolCalls.every(owns)) break;
    answer = await ask(rounds >= max);
  }
  return { answer, rounds, models: [...new Set(models)], costUsd };
}

/** Where a turn's tool calls run: its guild and channel, its agent, its seed. */
export interface TurnScope {
  guildId: string;
  channelId: string;
  /** The agent whose turn called the tool (absent for a request with no agent). */
  agentId?: string;
  /**
   * The member the turn acts for (the author of the message it answers): the calls run with
   * that member's rights. Absent for a turn on the agent's own initiative.
   */
  userId?: string;
  /** Seeds the calls' randomness and the ids of their side effects. */
  seed: string;
  /** What the model was answering (a proposal's reason). */
  reason?: string;
}

/** A turn's skills as the model sees them and runs them (the router's `Skills`). */
export interface TurnSkills {
  tools(): OpenAiTool[];
  /** Runs (or refuses) one call in the turn's scope: what the model reads, and the record. */
  call(
    turn: TurnScope,
    call: ModelToolCall,
    index: number,
  ): Promise<{ content: string; record: RouterToolCall }>;
}

/**
 * {@link runToolLoop} with a turn's skills: every call runs in the turn's guild and channel
 * and is recorded (`toolCalls`, what the decision keeps), in the order the model made them.
 * The synthesizer and the orchestrator both talk to the model through it.
 *
 * @example
 * const { answer, toolCalls } = await runSkillLoop({ skills, turn, messages, chat });
 */
export async function runSkillLoop(
  o: Omit<ToolLoopOptions, 'execute'> & { skills: TurnSkills; turn: TurnScope },
): Promise<ToolLoopResult & { toolCalls: RouterToolCall[] }> {
  const toolCalls: RouterToolCall[] = [];
  const out = await runToolLoop({
    ...o,
    execute: async (call) => {
      const done = await o.skills.call(o.turn, call, toolCalls.length);
      toolCalls.push(done.record);
      return done.content;
    },
  });
  return { ...out, toolCalls };
}
