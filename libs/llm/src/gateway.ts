import { randomUUID } from 'node:crypto';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import type { LlmConfig, ModelConfig, PurposeRoute } from './config';
import { backoffMs, classifyFailure, Cooldowns, type Failure } from './failures';
import {
  costMicros,
  estimateEmbeddingTokens,
  estimatePromptTokens,
  estimateTextTokens,
  microsToUsd,
  outputCap,
  usdToMicros,
  type Micros,
} from './pricing';
import type { Provider } from './providers';
import type { ChatRequest, EmbeddingsRequest } from './request';
import { contextAwareChain, largerWindowModel, resolveRoute, type RoutePlan } from './routing';

/** The caller's side of a request: whose budget pays, which purpose, and its lifetime. */
export interface RequestMeta {
  guildId: string;
  purposeHeader?: string;
  /** Aborted when the caller goes away; the upstream call is cancelled with it. */
  signal: AbortSignal;
}

export type ReserveResult =
  | { ok: true }
  | { ok: false; spentMicros: Micros; reservedMicros: Micros; limitMicros: Micros };

/**
 * Where budgets live. `reserve` must be atomic across every gateway replica: it admits
 * `micros` only when spent + reserved + micros ≤ the guild's limit for the day.
 */
export interface BudgetStore {
  reserve(
    guildId: string,
    day: string,
    micros: Micros,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): Promise<ReserveResult>;
  /** Releases `reservedMicros` and books `actualMicros` as spent. */
  settle(guildId: string, day: string, reservedMicros: Micros, actualMicros: Micros): Promise<void>;
}

/** The effective purpose → model policy (the configuration with run-time overrides). */
export interface PolicySource {
  purposes(): Record<string, PurposeRoute>;
}

export type UsageOutcome = 'ok' | 'budget_exhausted' | 'failed' | 'rejected' | 'aborted';

/** One row of the usage ledger, also published as the usage event. */
export interface UsageRecord {
  id: string;
  at: string;
  guildId: string;
  purpose: string | null;
  kind: 'chat' | 'embed';
  stream: boolean;
  requestedModel: string;
  model: string | null;
  provider: string | null;
  inputTokens: number;
  outputTokens: number;
  reservedUsd: number;
  costUsd: number;
  latencyMs: number;
  outcome: UsageOutcome;
  error?: string;
  /** Models tried and abandoned before the one that answered, in order. */
  fallbacks: string[];
  attempts: number;
}

export interface UsageSink {
  record(usage: UsageRecord): void;
}

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

/** An error the gateway answers with, in OpenAI's error shape. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  toBody(): { error: { message: string; type: string; param: string | null; code: string } } {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
  }
}

/** What answered a request: the model, the fallbacks abandoned on the way and the attempts. */
export interface Routed {
  model: ModelConfig;
  purpose: string | null;
  fallbacks: string[];
  attempts: number;
}

export interface ChatStream extends Routed {
  /** The chunks, the first one already received. Always iterate to the end or call `return()`. */
  chunks: AsyncGenerator<ChatCompletionChunk, void, undefined>;
}

interface Held {
  guildId: string;
  day: string;
  micros: Micros;
}

interface Operation<T> {
  kind: 'chat' | 'embed';
  stream: boolean;
  requestedModel: string;
  plan: RoutePlan;
  promptTokens: number;
  maxCost(model: ModelConfig): Micros;
  call(model: ModelConfig, provider: Provider, signal: AbortSignal): Promise<T>;
}

interface Executed<T> extends Routed {
  value: T;
  held: Held;
  controller: AbortController;
  release(): void;
  started: number;
}

const sleepWithSignal = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

function abortedPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

const KEY_SHAPED = /\b(?:sk|pk|rk|key|api[-_]?key)[-_][A-Za-z0-9_*.-]{6,}/gi;

/** The UTC day a budget period belongs to. */
export const budgetDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function failureError(f: Failure | undefined, tried: string[]): GatewayError {
  const via = tried.length ? ` (tried ${tried.join(', ')})` : '';
  if (!f) return new GatewayError(503, 'server_error', 'no_deployment', `no model available${via}`);
  switch (f.kind) {
    case 'aborted':
      return new GatewayError(499, 'client_closed', 'client_closed', f.message);
    case 'caller':
      return new GatewayError(f.status, 'invalid_request_error', 'upstream_rejected', f.message);
    case 'overflow':
      return new GatewayError(
        400,
        'invalid_request_error',
        'context_length_exceeded',
        `the prompt exceeds every available model's context window${via}`,
        'messages',
      );
    case 'retryable':
      if (f.reason === 'timeout')
        return new GatewayError(
          504,
          'server_error',
          'upstream_timeout',
          `upstream timed out${via}`,
        );
      return new GatewayError(
        502,
        'server_error',
        f.reason === 'rate_limited' ? 'upstream_rate_limited' : 'upstream_error',
        `upstream failed: ${f.message}${via}`,
      );
    case 'skip':
      return new GatewayError(
        502,
        'server_error',
        'upstream_error',
        `upstream refused: ${f.message}${via}`,
      );
    default: {
      const unknown: never = f;
      return unknown;
    }
  }
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
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly deps: GatewayDeps) {
    const r = deps.config.reliability;
    this.cooldowns = new Cooldowns(r.cooldownAfterFailures, r.cooldownMs);
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.sleep = deps.sleep ?? sleepWithSignal;
  }

  get config(): LlmConfig {
    return this.deps.config;
  }

  /** Waits for background settlements and usage records (for shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
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
    const route = resolveRoute(this.deps.config, this.deps.policy.purposes(), {
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
  ): Promise<Routed & { completion: ChatCompletion }> {
    const created = Math.floor(this.now() / 1000);
    const op = this.chatOperation(req, meta, false, (model, provider, signal) =>
      provider.chat(req, { model, maxTokens: this.maxTokens(req, model), signal, created }),
    );
    const done = await this.execute(op, meta);
    done.release();
    const completion = done.value;
    const input = completion.usage?.prompt_tokens ?? op.promptTokens;
    const output =
      completion.usage?.completion_tokens ??
      estimateTextTokens(JSON.stringify(completion.choices.map((c) => c.message)));
    this.finish(op, meta, done, input, output, 'ok');
    return {
      completion,
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
    const op = this.chatOperation(req, meta, true, async (model, provider, signal) => {
      const it = await provider.chatStream(req, {
        model,
        maxTokens: this.maxTokens(req, model),
        signal,
        created,
      });
      const first = await it.next();
      return { it, first };
    });
    const done = await this.execute(op, meta);
    const includeUsage = req.stream_options?.include_usage === true;
    return {
      model: done.model,
      purpose: done.purpose,
      fallbacks: done.fallbacks,
      attempts: done.attempts,
      chunks: this.relay(op, meta, done, includeUsage),
    };
  }

  private async *relay(
    op: Operation<{
      it: AsyncIterator<ChatCompletionChunk>;
      first: IteratorResult<ChatCompletionChunk>;
    }>,
    meta: RequestMeta,
    done: Executed<{
      it: AsyncIterator<ChatCompletionChunk>;
      first: IteratorResult<ChatCompletionChunk>;
    }>,
    includeUsage: boolean,
  ): AsyncGenerator<ChatCompletionChunk, void, undefined> {
    const { it } = done.value;
    const idleMs = this.deps.config.reliability.timeoutMs;
    let usage: ChatCompletionChunk['usage'] | undefined;
    let streamedChars = 0;
    let outcome: UsageOutcome = 'aborted';
    let error: string | undefined;
    try {
      let next = done.value.first;
      while (!next.done) {
        const chunk = next.value;
        if (chunk.usage) usage = chunk.usage;
        for (const c of chunk.choices) {
          streamedChars += (c.delta.content ?? '').length;
          for (const t of c.delta.tool_calls ?? [])
            streamedChars += (t.function?.arguments ?? '').length;
        }
        if (chunk.choices.length || includeUsage) {
          yield chunk.usage && !includeUsage ? { ...chunk, usage: undefined } : chunk;
        }
        let timer: NodeJS.Timeout | undefined;
        let timedOut = false;
        try {
          next = await Promise.race([
            it.next(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => {
                timedOut = true;
                done.controller.abort();
                reject(
                  new GatewayError(
                    504,
                    'server_error',
                    'upstream_timeout',
                    'upstream stalled mid-stream',
                  ),
                );
              }, idleMs);
            }),
          ]);
        } catch (e) {
          if (timedOut || e instanceof GatewayError) throw e;
          if (meta.signal.aborted)
            throw new GatewayError(
              499,
              'client_closed',
              'client_closed',
              'client closed the request',
            );
          throw new GatewayError(
            502,
            'server_error',
            'upstream_error',
            `upstream failed mid-stream: ${(e as Error).message}`,
          );
        } finally {
          clearTimeout(timer);
        }
      }
      outcome = 'ok';
    } catch (e) {
      outcome = meta.signal.aborted ? 'aborted' : 'failed';
      error = (e as Error).message;
      throw e;
    } finally {
      if (outcome !== 'ok') done.controller.abort();
      done.release();
      const input = usage?.prompt_tokens ?? op.promptTokens;
      const output = usage?.completion_tokens ?? Math.ceil(streamedChars / 3);
      this.finish(op, meta, done, input, output, outcome, error);
      if (outcome !== 'ok') void it.return?.().catch(() => undefined);
    }
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
    const done = await this.execute(op, meta);
    done.release();
    const input = done.value.usage?.prompt_tokens ?? promptTokens;
    this.finish(op, meta, done, input, 0, 'ok');
    return {
      response: done.value,
      model: done.model,
      purpose: done.purpose,
      fallbacks: done.fallbacks,
      attempts: done.attempts,
    };
  }

  private async reserve(held: Held, micros: Micros): Promise<ReserveResult> {
    if (micros <= held.micros) return { ok: true };
    const budgets = this.deps.config.budgets;
    const configuredGuild = budgets.guilds[held.guildId];
    const result = await this.deps.budgets.reserve(held.guildId, held.day, micros - held.micros, {
      guildMicros: configuredGuild === undefined ? undefined : usdToMicros(configuredGuild),
      defaultMicros: usdToMicros(budgets.defaultGuildUsdPerDay),
    });
    if (result.ok) held.micros = micros;
    return result;
  }

  private async execute<T>(op: Operation<T>, meta: RequestMeta): Promise<Executed<T>> {
    const started = this.now();
    const rel = this.deps.config.reliability;
    const held: Held = { guildId: meta.guildId, day: budgetDay(started), micros: 0 };
    const chain = [...op.plan.chain];
    const abandoned: string[] = [];
    let attempts = 0;
    let last: Failure | undefined;
    let refused: Extract<ReserveResult, { ok: false }> | undefined;
    const tried = new Set<string>();

    // A cooling deployment is skipped, unless every deployment is cooling: then the one
    // that comes back first is tried rather than refusing outright.
    const now = this.now();
    const ready = chain.filter((m) => this.cooldowns.available(m.id, now));
    const order = ready.length ? ready : chain.slice(0, 1);
    for (const m of chain) if (!order.includes(m)) abandoned.push(m.id);

    const fail = (e: GatewayError, outcome: UsageOutcome, model: ModelConfig | null): never => {
      this.finishFailure(op, meta, held, started, attempts, abandoned, model, outcome, e.message);
      throw e;
    };

    for (let i = 0; i < order.length; i++) {
      const model = order[i];
      tried.add(model.id);
      const provider = this.deps.providers.get(model.provider);
      if (!provider) {
        abandoned.push(model.id);
        continue;
      }
      const reserved = await this.reserve(held, op.maxCost(model));
      if (!reserved.ok) {
        refused = reserved;
        abandoned.push(model.id);
        continue;
      }
      for (let retry = 0; ; retry++) {
        attempts++;
        const result = await this.attempt(model, provider, op, meta);
        if (result.ok) {
          this.cooldowns.success(model.id);
          return {
            value: result.value,
            model,
            purpose: op.plan.purpose,
            fallbacks: abandoned,
            attempts,
            held,
            controller: result.controller,
            release: result.release,
            started,
          };
        }
        const f = result.failure;
        last = f;
        if (f.kind === 'aborted') return fail(failureError(f, []), 'aborted', model);
        if (f.kind === 'caller') return fail(failureError(f, []), 'rejected', model);
        if (f.kind === 'overflow') {
          const bigger = largerWindowModel(
            this.deps.config,
            model,
            model.contextWindow ?? Math.ceil(op.promptTokens * 0.75),
            tried,
          );
          if (bigger && !order.includes(bigger)) order.splice(i + 1, 0, bigger);
          break;
        }
        const opened = this.cooldowns.failure(model.id, this.now());
        if (f.kind === 'skip' || opened || retry >= rel.retries) break;
        const wait =
          f.retryAfterMs ?? backoffMs(retry, rel.backoffBaseMs, rel.backoffMaxMs, this.random());
        if (wait > rel.maxRetryAfterMs) break;
        try {
          await this.sleep(wait, meta.signal);
        } catch {
          return fail(
            failureError({ kind: 'aborted', message: 'client closed the request' }, []),
            'aborted',
            model,
          );
        }
      }
      abandoned.push(model.id);
    }
    if (refused && attempts === 0) {
      const limit = microsToUsd(refused.limitMicros);
      const used = microsToUsd(refused.spentMicros + refused.reservedMicros);
      const need = microsToUsd(op.maxCost(order[order.length - 1] ?? chain[0]));
      const tomorrow = Date.parse(`${held.day}T00:00:00Z`) + 86_400_000;
      return fail(
        new GatewayError(
          429,
          'budget_exhausted',
          'budget_exhausted',
          `guild ${meta.guildId} budget exhausted: $${used.toFixed(6)} of $${limit.toFixed(6)} per day is spent or reserved; this request may cost up to $${need.toFixed(6)}`,
          null,
          Math.max(1, Math.ceil((tomorrow - this.now()) / 1000)),
        ),
        'budget_exhausted',
        null,
      );
    }
    return fail(failureError(last, abandoned), 'failed', null);
  }

  private async attempt<T>(
    model: ModelConfig,
    provider: Provider,
    op: Operation<T>,
    meta: RequestMeta,
  ): Promise<
    | { ok: true; value: T; controller: AbortController; release(): void }
    | { ok: false; failure: Failure }
  > {
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort();
    if (meta.signal.aborted) controller.abort();
    meta.signal.addEventListener('abort', onAbort, { once: true });
    const release = () => meta.signal.removeEventListener('abort', onAbort);
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.deps.config.reliability.timeoutMs);
    try {
      const value = await Promise.race([
        op.call(model, provider, controller.signal),
        abortedPromise(controller.signal),
      ]);
      return { ok: true, value, controller, release };
    } catch (e) {
      controller.abort();
      release();
      const failure = classifyFailure(e, { timedOut, aborted: meta.signal.aborted });
      return { ok: false, failure: { ...failure, message: this.redact(failure.message) } };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Upstream error texts can quote a key (even masked); callers and logs never see one. */
  private redact(message: string): string {
    let out = message.replace(KEY_SHAPED, '[redacted]');
    for (const secret of this.deps.secrets ?? [])
      if (secret) out = out.split(secret).join('[redacted]');
    return out;
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch(() => undefined).finally(() => this.pending.delete(t));
    this.pending.add(t);
  }

  private finish<T>(
    op: Operation<T>,
    meta: RequestMeta,
    done: Executed<T>,
    inputTokens: number,
    outputTokens: number,
    outcome: UsageOutcome,
    error?: string,
  ): void {
    const cost = costMicros(done.model, inputTokens, outputTokens);
    this.settleAndRecord(op, meta, done.held, cost, {
      started: done.started,
      attempts: done.attempts,
      fallbacks: done.fallbacks,
      model: done.model,
      inputTokens,
      outputTokens,
      outcome,
      error,
    });
  }

  private finishFailure<T>(
    op: Operation<T>,
    meta: RequestMeta,
    held: Held,
    started: number,
    attempts: number,
    fallbacks: string[],
    model: ModelConfig | null,
    outcome: UsageOutcome,
    error: string,
  ): void {
    this.settleAndRecord(op, meta, held, 0, {
      started,
      attempts,
      fallbacks,
      model,
      inputTokens: 0,
      outputTokens: 0,
      outcome,
      error,
    });
  }

  private settleAndRecord<T>(
    op: Operation<T>,
    meta: RequestMeta,
    held: Held,
    costMicrosActual: Micros,
    r: {
      started: number;
      attempts: number;
      fallbacks: string[];
      model: ModelConfig | null;
      inputTokens: number;
      outputTokens: number;
      outcome: UsageOutcome;
      error?: string;
    },
  ): void {
    if (held.micros > 0 || costMicrosActual > 0) {
      this.track(this.deps.budgets.settle(held.guildId, held.day, held.micros, costMicrosActual));
    }
    this.deps.usage.record({
      id: randomUUID(),
      at: new Date(r.started).toISOString(),
      guildId: meta.guildId,
      purpose: op.plan.purpose,
      kind: op.kind,
      stream: op.stream,
      requestedModel: op.requestedModel,
      model: r.model?.id ?? null,
      provider: r.model?.provider ?? null,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      reservedUsd: microsToUsd(held.micros),
      costUsd: microsToUsd(costMicrosActual),
      latencyMs: Math.max(0, this.now() - r.started),
      outcome: r.outcome,
      ...(r.error ? { error: r.error.slice(0, 500) } : {}),
      fallbacks: r.fallbacks,
      attempts: r.attempts,
    });
  }
}
