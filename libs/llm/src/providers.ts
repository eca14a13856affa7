import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { AnthropicStreamTranslator, fromAnthropicMessage, toAnthropicRequest } from './anthropic';
import type { ModelConfig, ProviderConfig } from './config';
import { UnsupportedError } from './failures';
import { offlineChunks, offlineCompletion, offlineEmbeddings } from './offline';
import type { ChatRequest, EmbeddingsRequest } from './request';
import { UpstreamHttp } from './upstream-http';

/** One upstream call: the model, its output cap and the signal that cancels it. */
export interface CallContext {
  model: ModelConfig;
  maxTokens: number;
  signal: AbortSignal;
  /** Seconds since the epoch, for `created`. */
  created: number;
}

/**
 * A model provider in OpenAI shapes. Streams end with a usage chunk (empty `choices`)
 * whenever the upstream reports usage.
 */
export interface Provider {
  readonly id: string;
  readonly kind: ProviderConfig['kind'];
  chat(req: ChatRequest, ctx: CallContext): Promise<ChatCompletion>;
  chatStream(req: ChatRequest, ctx: CallContext): Promise<AsyncIterator<ChatCompletionChunk>>;
  embed(
    req: EmbeddingsRequest,
    ctx: Omit<CallContext, 'maxTokens'>,
  ): Promise<CreateEmbeddingResponse>;
}

/** The gateway owns retries and timeouts (through the signal), so the SDKs do neither. */
const SDK_TIMEOUT_MS = 24 * 3600 * 1000;

/**
 * The request as the upstream gets it: the upstream's model id, the output cap when the
 * caller set none, and `stream` as this call makes it (the caller's `stream` and
 * `stream_options` are the gateway's to read). One copy of the caller's fields.
 */
function upstreamChatBody(
  req: ChatRequest,
  ctx: CallContext,
  stream: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const k in req) if (k !== 'stream' && k !== 'stream_options') body[k] = req[k];
  body.model = ctx.model.upstream;
  if (req.max_completion_tokens == null && req.max_tokens == null) body.max_tokens = ctx.maxTokens;
  body.stream = stream;
  return body;
}

export class OpenAiProvider implements Provider {
  readonly kind = 'openai' as const;
  private readonly client: OpenAI;
  /** Plain completions, the hot path, go through a lean keep-alive client; the rest through the SDK. */
  private readonly http: UpstreamHttp;

  constructor(
    readonly id: string,
    opts: { baseUrl?: string; apiKey?: string },
  ) {
    this.client = new OpenAI({
      apiKey: opts.apiKey ?? 'not-needed',
      baseURL: opts.baseUrl,
      maxRetries: 0,
      timeout: SDK_TIMEOUT_MS,
    });
    this.http = new UpstreamHttp(this.client.baseURL, opts.apiKey ?? 'not-needed');
  }

  chat(req: ChatRequest, ctx: CallContext): Promise<ChatCompletion> {
    const body = upstreamChatBody(req, ctx, false);
    const model = ctx.model.id;
    // (a plain function: an async one costs two more promises a call)
    return this.http.postJson('/chat/completions', body, ctx.signal).then((answer) => {
      const res = answer as ChatCompletion;
      res.model = model; // parsed for this call alone
      return res;
    });
  }

  async chatStream(
    req: ChatRequest,
    ctx: CallContext,
  ): Promise<AsyncIterator<ChatCompletionChunk>> {
    const body = { ...upstreamChatBody(req, ctx, true), stream_options: { include_usage: true } };
    const stream = await this.client.chat.completions.create(
      body as unknown as OpenAI.ChatCompletionCreateParamsStreaming,
      { signal: ctx.signal },
    );
    const model = ctx.model.id;
    return (async function* () {
      for await (const chunk of stream) yield { ...chunk, model };
    })();
  }

  async embed(
    req: EmbeddingsRequest,
    ctx: Omit<CallContext, 'maxTokens'>,
  ): Promise<CreateEmbeddingResponse> {
    const res = await this.client.embeddings.create(
      { ...req, model: ctx.model.upstream } as OpenAI.EmbeddingCreateParams,
      { signal: ctx.signal },
    );
    return { ...res, model: ctx.model.id };
  }
}

export class AnthropicProvider implements Provider {
  readonly kind = 'anthropic' as const;
  private readonly client: Anthropic;

  constructor(
    readonly id: string,
    opts: { baseUrl?: string; apiKey?: string },
  ) {
    this.client = new Anthropic({
      apiKey: opts.apiKey ?? 'not-needed',
      baseURL: opts.baseUrl,
      maxRetries: 0,
      timeout: SDK_TIMEOUT_MS,
    });
  }

  async chat(req: ChatRequest, ctx: CallContext): Promise<ChatCompletion> {
    const params = toAnthropicRequest(req, ctx.model.upstream, ctx.maxTokens);
    const msg = await this.client.messages.create(params, {
      signal: ctx.signal,
      timeout: SDK_TIMEOUT_MS,
    });
    return fromAnthropicMessage(msg, ctx.model.id, ctx.created);
  }

  async chatStream(
    req: ChatRequest,
    ctx: CallContext,
  ): Promise<AsyncIterator<ChatCompletionChunk>> {
    const params = toAnthropicRequest(req, ctx.model.upstream, ctx.maxTokens);
    const stream = await this.client.messages.create(
      { ...params, stream: true },
      { signal: ctx.signal, timeout: SDK_TIMEOUT_MS },
    );
    const translator = new AnthropicStreamTranslator(ctx.model.id, ctx.created);
    return (async function* () {
      for await (const ev of stream) yield* translator.push(ev);
      yield translator.usageChunk();
    })();
  }

  async embed(): Promise<CreateEmbeddingResponse> {
    throw new UnsupportedError('Anthropic offers no embeddings');
  }
}

export class OfflineProvider implements Provider {
  readonly kind = 'offline' as const;
  constructor(readonly id: string) {}

  async chat(req: ChatRequest, ctx: CallContext): Promise<ChatCompletion> {
    return offlineCompletion(req, ctx.model.upstream, ctx.model.id, ctx.maxTokens, ctx.created);
  }

  async chatStream(
    req: ChatRequest,
    ctx: CallContext,
  ): Promise<AsyncIterator<ChatCompletionChunk>> {
    const chunks = offlineChunks(req, ctx.model.upstream, ctx.model.id, ctx.maxTokens, ctx.created);
    return (async function* () {
      yield* chunks;
    })();
  }

  async embed(
    req: EmbeddingsRequest,
    ctx: Omit<CallContext, 'maxTokens'>,
  ): Promise<CreateEmbeddingResponse> {
    return offlineEmbeddings(req, ctx.model.id);
  }
}

export class ProviderKeyError extends Error {}

/**
 * Builds the providers of a configuration. Keys come only from the environment variable
 * each provider names; a named variable that is unset is a configuration error.
 *
 * @example
 * const providers = createProviders(config.providers, process.env);
 */
export function createProviders(
  configs: ProviderConfig[],
  env: NodeJS.ProcessEnv,
): Map<string, Provider> {
  const out = new Map<string, Provider>();
  for (const p of configs) {
    let apiKey: string | undefined;
    if (p.apiKeyEnv) {
      apiKey = env[p.apiKeyEnv];
      if (!apiKey)
        throw new ProviderKeyError(
          `provider ${p.id}: environment variable ${p.apiKeyEnv} is not set`,
        );
    }
    switch (p.kind) {
      case 'openai':
        out.set(p.id, new OpenAiProvider(p.id, { baseUrl: p.baseUrl, apiKey }));
        break;
      case 'anthropic':
        out.set(p.id, new AnthropicProvider(p.id, { baseUrl: p.baseUrl, apiKey }));
        break;
      case 'offline':
        out.set(p.id, new OfflineProvider(p.id));
        break;
      default: {
        const unknown: never = p.kind;
        throw new Error(`unknown provider kind ${String(unknown)}`);
      }
    }
  }
  return out;
}
