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
  let answer = await ask(max === 0);
  while (answer.toolCalls.length && rounds < max) {
    messages.push({
      role: 'assistant',
      content: answer.content || null,
      tool_calls: answer.toolCalls,
    });
    for (const call of answer.toolCalls) {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: await o.execute(call, rounds),
      });
    }
    rounds += 1;
    answer = await ask(rounds >= max);
  }
  return { answer, rounds, models: [...new Set(models)], costUsd };
}
