import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { Accounting } from './accounting';
import type { LlmConfig, ModelConfig } from './config';
import { GatewayError } from './errors';
import { Failover, sleepWithSignal } from './failover';
import { Cooldowns } from './failures';
import type { Operation } from './operation';
import {
  costMicros,
  estimateEmbeddingTokens,
  estimatePromptTokens,
  estimateTextTokens,
  outputCap,
} from './pricing';
import type {
  BudgetStore,
  ChatStream,
  PolicySource,
  RequestMeta,
  Routed,
  UsageSink,
} from './ports';
import type { Provider } from './providers';
import type { ChatRequest, EmbeddingsRequest } from './request';
import { contextAwareChain, resolveRoute, type RoutePlan } from './routing';
import { relayStream, type StartedStream } from './stream-relay';

export interface GatewayDeps {
  config: LlmConfig;
  providers: Map<string, Provider>;
  budgets: BudgetStore;
  policy: PolicySource;
  usage: UsageSink;
  /** Values never to echo to a caller (the provider keys), besides anything key-shaped. */
  secrets?: string[];
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The model gateway's core, free of HTTP and NATS: routes a request by purpose or model
 * id, reserves its maximum cost against the guild's daily budget, calls the provider
 * with timeout, retries (honouring `Retry-After`), fallbacks, per-deployment cooldown and
 * larger-window substitution, then settles the actual cost and records usage.
 *
 * @example
 * const gw = new LlmGateway({ config, providers, budgets, policy, usage });
 * const { completion } = await gw.chat(request, { guildId: '42', signal });
 */
export class LlmGateway {
  readonly cooldowns: Cooldowns;
  private readonly now: () => number;
  private readonly accounting: Accounting;
  private readonly failover: Failover;
  /**
   * Routes resolved under the current policy object, by purpose header or model: resolving
   * one builds its chain afresh, and the policy changes a few times a minute at most (a
   * refreshed policy is a new object, which starts a new cache).
   */
  private routes: { purposes?: object; plans: Map<string, RoutePlan> } = { plans: new Map() };

  constructor(private readonly deps: GatewayDeps) {
    const r = deps.config.reliability;
    this.cooldowns = new Cooldowns(r.cooldownAfterFailures, r.cooldownMs);
    this.now = deps.now ?? Date.now;
    this.accounting = new Accounting({
      config: deps.config,
      budgets: deps.budgets,
      usage: deps.usage,
      now: this.now,
    });
    this.failover = new Failover({
      config: deps.config,
      providers: deps.providers,
      accounting: this.accounting,
      cooldowns: this.cooldowns,
      secrets: deps.secrets ?? [],
      now: this.now,
      random: deps.random ?? Math.random,
      sleep: deps.sleep ?? sleepWithSignal,
    });
  }

  get config(): LlmConfig {
    return this.deps.config;
  }

  /** Waits for background settlements and usage records (for shutdown). */
  drain(): Promise<void> {
    return this.accounting.drain();
  }

  /** The configured models and every purpose as `purpose:<name>`, in OpenAI's list shape. */
  listModels(): {
    object: 'list';
    data: { id: string; object: 'model'; created: number; owned_by: string }[];
  } {
    const models = this.deps.config.models.map((m) => ({
      id: m.id,
      object: 'model' as const,
      created: 0,
      owned_by: m.provider,
    }));
    const purposes = Object.keys(this.deps.policy.purposes())
      .sort()
      .map((p) => ({
        id: `purpose:${p}`,
        object: 'model' as const,
        created: 0,
        owned_by: 'dirigent',
      }));
    return { object: 'list', data: [...models, ...purposes] };
  }

  private plan(model: string, meta: RequestMeta): RoutePlan {
    const purposes = this.deps.policy.purposes();
    if (this.routes.purposes !== purposes) this.routes = { purposes, plans: new Map() };
    const key = meta.purposeHeader === undefined ? `m:${model}` : `h:${meta.purposeHeader}`;
    const known = this.routes.plans.get(key);
    if (known) return known;
    const route = resolveRoute(this.deps.config, purposes, {
      model,
      purposeHeader: meta.purposeHeader,
    });
    if (!route.ok)
      throw new GatewayError(
        route.status,
        'invalid_request_error',
        route.code,
        route.message,
        route.param,
      );
    // only routes that resolved: as many as the configuration has models and purposes
    this.routes.plans.set(key, route.plan);
    return route.plan;
  }

  private chatOperation<T>(
    req: ChatRequest,
    meta: RequestMeta,
    stream: boolean,
    call: Operation<T>['call'],
  ): Operation<T> {
    const plan = this.plan(req.model, meta);
    const promptTokens = estimatePromptTokens(req);
    const fallback = this.deps.config.reliability.defaultMaxOutputTokens;
    const chain = contextAwareChain(this.deps.config, plan.chain, promptTokens);
    if (!chain.length)
      throw new GatewayError(
        400,
        'invalid_request_error',
        'context_length_exceeded',
        `messages: about ${Math.ceil(promptTokens * 0.75)} tokens fit no configured model's context window`,
        'messages',
      );
    return {
      kind: 'chat',
      stream,
      requestedModel: req.model,
      plan: { ...plan, chain },
      promptTokens,
      maxCost: (m) => costMicros(m, promptTokens, outputCap(req, m, fallback)),
      call,
    };
  }

  private maxTokens(req: ChatRequest, model: ModelConfig): number {
    return outputCap(req, model, this.deps.config.reliability.defaultMaxOutputTokens);
  }

  /** A non-streaming chat completion. */
  async chat(
    req: ChatRequest,
    meta: RequestMeta,
  ): Promise<Routed & { completion: ChatCompletion; costUsd: number }> {
    const created = Math.floor(this.now() / 1000);
    const op = this.chatOperation(req, meta, false, (model, provider, signal) =>
      provider.chat(req, { model, maxTokens: this.maxTokens(req, model), signal, created }),
    );
    const done = await this.failover.execute(op, meta);
    done.release();
    const completion = done.value;
    const input = completion.usage?.prompt_tokens ?? op.promptTokens;
    const output =
      completion.usage?.completion_tokens ??
      estimateTextTokens(JSON.stringify(completion.choices.map((c) => c.message)));
    const costUsd = this.accounting.finish(op, meta, done, input, output, 'ok');
    return {
      completion,
      costUsd,
      model: done.model,
      purpose: done.purpose,
      fallbacks: done.fallbacks,
      attempts: done.attempts,
    };
  }

  /**
   * A streaming chat completion. Resolves once the first chunk has arrived, so failover
   * happens only before anything was sent; a failure after that ends the stream with an
   * error. The usage chunk is passed on only when `stream_options.include_usage` asks.
   */
  async chatStream(req: ChatRequest, meta: RequestMeta): Promise<ChatStream> {
    const created = Math.floor(this.now() / 1000);
    const op = this.chatOperation<StartedStream>(
      req,
      meta,
      true,
      async (model, provider, signal) => {
        const it = await provider.chatStream(req, {
          model,
          maxTokens: this.maxTokens(req, model),
          signal,
          created,
        });
        const first = await it.next();
        return { it, first };
      },
    );
    const done = await this.failover.execute(op, meta);
    return {
      model: done.model,
      purpose: done.purpose,
      fallbacks: done.fallbacks,
      attempts: done.attempts,
      chunks: relayStream(meta, done, {
        includeUsage: req.stream_options?.include_usage === true,
        idleMs: this.deps.config.reliability.timeoutMs,
        promptTokens: op.promptTokens,
        finish: (input, output, outcome, error) =>
          this.accounting.finish(op, meta, done, input, output, outcome, error),
      }),
    };
  }

  /** Embeddings for one or many inputs. */
  async embed(
    req: EmbeddingsRequest,
    meta: RequestMeta,
  ): Promise<Routed & { response: CreateEmbeddingResponse }> {
    const plan = this.plan(req.model, meta);
    const promptTokens = estimateEmbeddingTokens(req.input);
    const created = Math.floor(this.now() / 1000);
    const op: Operation<CreateEmbeddingResponse> = {
      kind: 'embed',
      stream: false,
      requestedModel: req.model,
      plan,
      promptTokens,
      maxCost: (m) => costMicros(m, promptTokens, 0),
      call: (model, provider, signal) => provider.embed(req, { model, signal, created }),
    };
    const done = await this.failover.execute(op, meta);
    done.release();
    const input = done.value.usage?.prompt_tokens ?? promptTokens;
    this.accounting.finish(op, meta, done, input, 0, 'ok');
    return {
      response: done.value,
      model: done.model,
      purpose: done.purpose,
      fallbacks: done.fallbacks,
      attempts: done.attempts,
    };
  }
}
