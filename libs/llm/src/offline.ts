import { createHash } from 'node:crypto';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { NO_REPLY } from '@dirigent/contracts';
import { hashedEmbedding } from '@dirigent/memory-domain';
import { estimatePromptTokens, estimateEmbeddingTokens, estimateTextTokens } from './pricing';
import { participantReply } from './offline-reply';
import { offlineToolCall, toolResultReply } from './offline-tools';
import type { ChatRequest, EmbeddingsRequest } from './request';

/**
 * The offline model's answer: `NO_REPLY` for the `no-reply` upstream, otherwise a short
 * participant's reply to the message the prompt answers ({@link participantReply});
 * deterministic, so demos and tests replay.
 */
export function offlineReply(req: ChatRequest, upstream: string): string {
  if (upstream === 'no-reply') return NO_REPLY;
  return toolResultReply(req) ?? participantReply(req);
}

const completionId = (req: ChatRequest) =>
  `chatcmpl-offline-${createHash('sha256').update(JSON.stringify(req.messages)).digest('hex').slice(0, 16)}`;

function completionTokens(text: string, cap: number): number {
  return Math.min(cap, estimateTextTokens(text));
}

export function offlineCompletion(
  req: ChatRequest,
  upstream: string,
  model: string,
  cap: number,
  created: number,
): ChatCompletion {
  const prompt = estimatePromptTokens(req);
  const call = upstream === 'no-reply' ? null : offlineToolCall(req);
  if (call) {
    const args = JSON.stringify(call.arguments);
    const completion = completionTokens(args, cap);
    const id = completionId(req);
    return {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: `call_${id.slice(-16)}`,
                type: 'function',
                function: { name: call.name, arguments: args },
              },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      },
    };
  }
  const text = offlineReply(req, upstream);
  const completion = completionTokens(text, cap);
  return {
    id: completionId(req),
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}

/** The same answer as {@link offlineCompletion}, one word per chunk, then a usage chunk. */
export function offlineChunks(
  req: ChatRequest,
  upstream: string,
  model: string,
  cap: number,
  created: number,
): ChatCompletionChunk[] {
  const full = offlineCompletion(req, upstream, model, cap, created);
  const base = { id: full.id, object: 'chat.completion.chunk' as const, created, model };
  const end = (finish: 'stop' | 'tool_calls'): ChatCompletionChunk[] => [
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish, logprobs: null }] },
    { ...base, choices: [], usage: full.usage },
  ];
  const call = full.choices[0].message.tool_calls?.[0];
  if (call?.type === 'function') {
    const { name, arguments: args } = call.function;
    return [
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant' as const,
              tool_calls: [
                { index: 0, id: call.id, type: 'function', function: { name, arguments: '' } },
              ],
            },
            finish_reason: null,
            logprobs: null,
          },
        ],
      },
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: args } }] },
            finish_reason: null,
            logprobs: null,
          },
        ],
      },
      ...end('tool_calls'),
    ];
  }
  const text = full.choices[0].message.content ?? '';
  const words = text.match(/\S+\s*/g) ?? [''];
  return [
    ...words.map((w, i) => ({
      ...base,
      choices: [
        {
          index: 0,
          delta: i === 0 ? { role: 'assistant' as const, content: w } : { content: w },
          finish_reason: null,
          logprobs: null,
        },
      ],
    })),
    ...end('stop'),
  ];
}

/**
 * A deterministic unit vector for a text: memory's weight-free hashed n-gram embedder, so
 * that the offline `embed` purpose still finds texts that share words and word pieces.
 */
export function offlineVector(text: string, dimensions: number): number[] {
  return hashedEmbedding(text, dimensions);
}

export function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

export function offlineEmbeddings(req: EmbeddingsRequest, model: string): CreateEmbeddingResponse {
  const inputs: string[] =
    typeof req.input === 'string'
      ? [req.input]
      : (req.input as unknown[]).map((i) => (typeof i === 'string' ? i : JSON.stringify(i)));
  // A flat token array is one input, not many.
  const items =
    typeof req.input !== 'string' && typeof req.input[0] === 'number'
      ? [JSON.stringify(req.input)]
      : inputs;
  const dims = req.dimensions ?? 256;
  const tokens = estimateEmbeddingTokens(req.input);
  return {
    object: 'list',
    model,
    data: items.map((text, index) => {
      const v = offlineVector(text, dims);
      return {
        object: 'embedding' as const,
        index,
        embedding: (req.encoding_format === 'base64' ? toBase64(v) : v) as number[],
      };
    }),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
