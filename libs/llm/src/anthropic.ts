import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { contentText, type ChatMessage, type ChatRequest } from './request';

type FinishReason = ChatCompletion['choices'][number]['finish_reason'];

/** Anthropic stop reasons in OpenAI's vocabulary. */
export function finishReason(stop: Anthropic.StopReason | null | undefined): FinishReason {
  switch (stop) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
    case null:
    case undefined:
      return 'stop';
    default: {
      const unknown: never = stop;
      return unknown ? 'stop' : 'stop';
    }
  }
}

function imageBlock(url: string): Anthropic.ImageBlockParam {
  const data = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s.exec(url);
  if (data) {
    return {
      type: 'image',
      source: {
        type: 'base64',
        media_type: data[1] as Anthropic.Base64ImageSource['media_type'],
        data: data[2],
      },
    };
  }
  return { type: 'image', source: { type: 'url', url } };
}

function userBlocks(content: unknown): Anthropic.ContentBlockParam[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: Anthropic.ContentBlockParam[] = [];
  for (const part of content as { type: string; text?: string; image_url?: { url: string } }[]) {
    if (part.type === 'text' && part.text) blocks.push({ type: 'text', text: part.text });
    if (part.type === 'image_url' && part.image_url) blocks.push(imageBlock(part.image_url.url));
  }
  return blocks;
}

function parseArguments(args: string): Record<string, unknown> {
  if (!args.trim()) return {};
  try {
    const v = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { value: v };
  } catch {
    // The model produced invalid JSON earlier; keep it visible rather than drop the call.
    return { _raw: args };
  }
}

/**
 * An OpenAI chat request as Anthropic Messages parameters: system and developer
 * messages become `system`, tool calls become `tool_use` blocks, tool results become
 * `tool_result` blocks in a user turn, and consecutive same-role turns are merged
 * (Anthropic wants user and assistant to alternate).
 *
 * @example
 * toAnthropicRequest(req, 'claude-sonnet-4-6', 1024);
 */
export function toAnthropicRequest(
  req: ChatRequest,
  upstream: string,
  maxTokens: number,
): Anthropic.MessageCreateParamsNonStreaming {
  const system: string[] = [];
  const turns: Anthropic.MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: Anthropic.ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = turns[turns.length - 1];
    if (last && last.role === role) (last.content as Anthropic.ContentBlockParam[]).push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of req.messages as ChatMessage[]) {
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(contentText(m.content));
        break;
      case 'user':
        push('user', userBlocks(m.content));
        break;
      case 'assistant': {
        const blocks: Anthropic.ContentBlockParam[] = [];
        const text = contentText(m.content ?? '');
        if (text) blocks.push({ type: 'text', text });
        for (const call of m.tool_calls ?? []) {
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: call.function.name,
            input: parseArguments(call.function.arguments),
          });
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
        push('user', [
          { type: 'tool_result', tool_use_id: m.tool_call_id, content: contentText(m.content) },
        ]);
        break;
      default: {
        const unknown: never = m;
        throw new Error(`unhandled role ${(unknown as { role: string }).role}`);
      }
    }
  }
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: upstream,
    max_tokens: maxTokens,
    messages: turns,
  };
  const systemText = system.filter(Boolean).join('\n\n');
  if (systemText) params.system = systemText;
  if (req.temperature != null) params.temperature = Math.min(req.temperature, 1);
  if (req.top_p != null) params.top_p = req.top_p;
  if (req.stop != null)
    params.stop_sequences = typeof req.stop === 'string' ? [req.stop] : req.stop;
  if (req.user) params.metadata = { user_id: req.user };
  if (req.tools?.length) {
    params.tools = req.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description ? { description: t.function.description } : {}),
      input_schema: (t.function.parameters ?? {
        type: 'object',
        properties: {},
      }) as Anthropic.Tool.InputSchema,
    }));
    const disable = req.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
    const choice = req.tool_choice;
    // `none` keeps the tools defined: a conversation holding tool_use blocks needs them.
    if (choice === 'none') params.tool_choice = { type: 'none' };
    else if (choice === 'required') params.tool_choice = { type: 'any', ...disable };
    else if (typeof choice === 'object')
      params.tool_choice = { type: 'tool', name: choice.function.name, ...disable };
    else if (req.parallel_tool_calls === false) params.tool_choice = { type: 'auto', ...disable };
  }
  return params;
}

/** Anthropic's input tokens include neither cache reads nor cache writes; OpenAI's do. */
function promptTokens(u: {
  input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}): number {
  return (
    (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0)
  );
}

/**
 * An Anthropic message as an OpenAI chat completion (text joined, `tool_use` blocks as
 * `tool_calls`, stop reason and usage translated). `model` is the gateway's model id.
 */
export function fromAnthropicMessage(
  msg: Anthropic.Message,
  model: string,
  created: number,
): ChatCompletion {
  const text = msg.content
    .filter((b): b is Anthropic.TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const toolCalls = msg.content
    .filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    .map((b) => ({
      id: b.id,
      type: 'function' as const,
      function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
    }));
  const prompt = promptTokens(msg.usage);
  return {
    id: `chatcmpl-${msg.id}`,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || (toolCalls.length ? null : ''),
          refusal: null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReason(msg.stop_reason),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: msg.usage.output_tokens,
      total_tokens: prompt + msg.usage.output_tokens,
    },
  };
}

/**
 * Translates Anthropic stream events into OpenAI chunks, one event at a time. Text
 * deltas become `content` deltas, a `tool_use` block opens a `tool_calls` entry whose
 * `input_json_delta`s stream as `arguments`, and the stop reason ends the stream; the
 * usage chunk (empty `choices`) comes last, as OpenAI sends it with `include_usage`.
 *
 * @example
 * const t = new AnthropicStreamTranslator('claude', 1700000000);
 * for await (const ev of stream) for (const chunk of t.push(ev)) send(chunk);
 */
export class AnthropicStreamTranslator {
  private id = 'chatcmpl-anthropic';
  private toolIndex = -1;
  private readonly blockToTool = new Map<number, number>();
  private usage = { prompt: 0, completion: 0 };
  private roleSent = false;

  constructor(
    private readonly model: string,
    private readonly created: number,
  ) {}

  get promptTokens(): number {
    return this.usage.prompt;
  }
  get completionTokens(): number {
    return this.usage.completion;
  }

  private chunk(
    delta: ChatCompletionChunk.Choice.Delta,
    finish: FinishReason | null = null,
  ): ChatCompletionChunk {
    if (!this.roleSent) {
      delta = { role: 'assistant', ...delta };
      this.roleSent = true;
    }
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  }

  push(ev: Anthropic.RawMessageStreamEvent): ChatCompletionChunk[] {
    switch (ev.type) {
      case 'message_start':
        this.id = `chatcmpl-${ev.message.id}`;
        this.usage.prompt = promptTokens(ev.message.usage);
        this.usage.completion = ev.message.usage.output_tokens ?? 0;
        return [this.chunk({ content: '' })];
      case 'content_block_start': {
        const block = ev.content_block;
        if (block.type === 'tool_use') {
          this.toolIndex += 1;
          this.blockToTool.set(ev.index, this.toolIndex);
          return [
            this.chunk({
              tool_calls: [
                {
                  index: this.toolIndex,
                  id: block.id,
                  type: 'function',
                  function: { name: block.name, arguments: '' },
                },
              ],
            }),
          ];
        }
        if (block.type === 'text' && block.text) return [this.chunk({ content: block.text })];
        return [];
      }
      case 'content_block_delta': {
        const d = ev.delta;
        if (d.type === 'text_delta') return [this.chunk({ content: d.text })];
        if (d.type === 'input_json_delta') {
          const index = this.blockToTool.get(ev.index);
          if (index === undefined) return [];
          return [this.chunk({ tool_calls: [{ index, function: { arguments: d.partial_json } }] })];
        }
        return [];
      }
      case 'content_block_stop':
        return [];
      case 'message_delta': {
        if (ev.usage) {
          this.usage.completion = ev.usage.output_tokens ?? this.usage.completion;
          const p = promptTokens(ev.usage);
          if (p) this.usage.prompt = p;
        }
        return ev.delta.stop_reason ? [this.chunk({}, finishReason(ev.delta.stop_reason))] : [];
      }
      case 'message_stop':
        return [];
      default: {
        const unknown: never = ev;
        return unknown ? [] : [];
      }
    }
  }

  /** The trailing usage chunk. */
  usageChunk(): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [],
      usage: {
        prompt_tokens: this.usage.prompt,
        completion_tokens: this.usage.completion,
        total_tokens: this.usage.prompt + this.usage.completion,
      },
    };
  }
}
