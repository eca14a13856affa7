import type { ModelConfig } from './config';
import type { ChatRequest, EmbeddingsRequest } from './request';

/** Money inside the gateway is integer micro-USD, so budgets add up exactly. */
export type Micros = number;

export const usdToMicros = (usd: number): Micros => Math.round(usd * 1_000_000);
export const microsToUsd = (micros: Micros): number => micros / 1_000_000;

/** Per-message framing tokens (role markers) charged by every chat format. */
const MESSAGE_OVERHEAD = 4;
/** A fixed charge for an image part: the reservation has no pixel sizes to go by. */
const IMAGE_TOKENS = 1_600;

/**
 * A deliberately high estimate of a text's token count: one token per three UTF-8 bytes
 * (real tokenizers average about four for English), so a reservation errs on the side of
 * refusing rather than overshooting the budget.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** Upper-bound estimate of a chat request's prompt tokens. */
export function estimatePromptTokens(req: Pick<ChatRequest, 'messages' | 'tools'>): number {
  let tokens = 3;
  for (const m of req.messages) {
    tokens += MESSAGE_OVERHEAD;
    const content = (m as { content?: unknown }).content;
    if (typeof content === 'string') tokens += estimateTextTokens(content);
    else if (Array.isArray(content)) {
      for (const part of content as { type: string; text?: string }[]) {
        tokens += part.type === 'text' ? estimateTextTokens(part.text ?? '') : IMAGE_TOKENS;
      }
    }
    if (m.role === 'assistant' && m.tool_calls)
      tokens += estimateTextTokens(JSON.stringify(m.tool_calls));
  }
  if (req.tools?.length) tokens += estimateTextTokens(JSON.stringify(req.tools));
  return tokens;
}

/** Upper-bound estimate of an embeddings request's input tokens. */
export function estimateEmbeddingTokens(input: EmbeddingsRequest['input']): number {
  if (typeof input === 'string') return estimateTextTokens(input);
  let tokens = 0;
  for (const item of input as unknown[]) {
    if (typeof item === 'string') tokens += estimateTextTokens(item);
    else if (typeof item === 'number') tokens += 1;
    else if (Array.isArray(item)) tokens += item.length;
  }
  return tokens;
}

/** The output cap of a request: the caller's, else the model's, else the gateway default. */
export function outputCap(req: ChatRequest, model: ModelConfig, fallback: number): number {
  return req.max_completion_tokens ?? req.max_tokens ?? model.maxOutputTokens ?? fallback;
}

/**
 * Cost of a call in micro-USD, rounded up. Prices are USD per million tokens, so a
 * token costs exactly `price` micro-USD.
 *
 * @example
 * costMicros(model, 1000, 500); // 1000 × in + 500 × out, rounded up
 */
export function costMicros(model: ModelConfig, inputTokens: number, outputTokens: number): Micros {
  return Math.ceil(inputTokens * model.inputUsdPerMTok + outputTokens * model.outputUsdPerMTok);
}
