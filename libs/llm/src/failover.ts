import type { Accounting } from './accounting';
import { budgetDay } from './accounting';
import type { LlmConfig, ModelConfig } from './config';
import { failureError, GatewayError, redact } from './errors';
import { abortError, backoffMs, classifyFailure, type Cooldowns, type Failure } from './failures';
import type { Executed, Held, Operation } from './operation';
import { microsToUsd, type Micros } from './pricing';
import type { RequestMeta, ReserveResult, UsageOutcome } from './ports';
import type { Provider } from './providers';
import { largerWindowModel } from './routing';

export const sleepWithSignal = (ms: number, signal: AbortSignal) =>
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

type Attempt<T> =
  | { ok: true; value: T; controller: AbortController; release(): void }
  | { ok: false; failure: Failure };

export interface FailoverDeps {
  config: LlmConfig;
  providers: Map<string, Provider>;
  accounting: Accounting;
  cooldowns: Cooldowns;
  secrets: string[];
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The 429 of a guild whose daily budget cannot hold the request's worst-case cost. */
function budgetExhausted(
  refused: Extract<ReserveResult, { ok: false }>,
  needMicros: Micros,
  held: Held,
  meta: RequestMeta,
  now: number,
): GatewayError {
  const limit = microsToUsd(refused.limitMicros);
  const used = microsToUsd(refused.spentMicros + refused.reservedMicros);
  const need = microsToUsd(needMicros);
  const tomorrow = Date.parse(`${held.day}T00:00:00Z`) + 86_400_000;
  return new GatewayError(
    429,
    'budget_exhausted',
    'budget_exhausted',
    `guild ${meta.guildId} budget exhausted: $${used.toFixed(6)} of $${limit.toFixed(6)} per day is spent or reserved; this request may cost up to $${need.toFixed(6)}`,
    null,
    Math.max(1, Math.ceil((tomorrow - now) / 1000)),
  );
}

/**
 * Runs an operation down its route: per deployment, reserve its maximum cost, then
 * attempt with a timeout, retrying retryable failures with backoff (or exactly
 * `Retry-After`), and move on to the next fallback (or a larger-window model) when the
 * deployment is done for. Cooling deployments are skipped.
 */
export class Failover {
  constructor(private readonly deps: FailoverDeps) {}

  async execute<T>(op: Operation<T>, meta: RequestMeta): Promise<Executed<T>> {
    const { config, cooldowns, accounting } = this.deps;
    const started = this.deps.now();
    const rel = config.reliability;
    const held: Held = { guildId: meta.guildId, day: budgetDay(started), micros: 0 };
    const chain = [...op.plan.chain];
    const abandoned: string[] = [];
    let attempts = 0;
    let last: Failure | undefined;
    let refused: Extract<ReserveResult, { ok: false }> | undefined;
    const tried = new Set<string>();

    // A cooling deployment is skipped, unless every deployment is cooling: then the one
    // that comes back first is tried rather than refusing outright.
    const now = this.deps.now();
    const ready = chain.filter((m) => cooldowns.available(m.id, now));
    const order = ready.length ? ready : chain.slice(0, 1);
    for (const m of chain) if (!order.includes(m)) abandoned.push(m.id);

    const fail = (e: GatewayError, outcome: UsageOutcome, model: ModelConfig | null): never => {
      accounting.finishFailure(op, meta, held, {
        started,
        attempts,
        fallbacks: abandoned,
        model,
        outcome,
        error: e.message,
      });
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
      const reserving = accounting.reserve(held, op.maxCost(model));
      // (most calls are admitted at once, from credit: no await for them)
      const reserved = reserving instanceof Promise ? await reserving : reserving;
      if (!reserved.ok) {
        refused = reserved;
        abandoned.push(model.id);
        continue;
      }
      for (let retry = 0; ; retry++) {
        attempts++;
        const result = await this.attempt(model, provider, op, meta);
        if (result.ok) {
          cooldowns.success(model.id);
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
            config,
            model,
            model.contextWindow ?? Math.ceil(op.promptTokens * 0.75),
            tried,
          );
          if (bigger && !order.includes(bigger)) order.splice(i + 1, 0, bigger);
          break;
        }
        const opened = cooldowns.failure(model.id, this.deps.now());
        if (f.kind === 'skip' || opened || retry >= rel.retries) break;
        const wait =
          f.retryAfterMs ??
          backoffMs(retry, rel.backoffBaseMs, rel.backoffMaxMs, this.deps.random());
        if (wait > rel.maxRetryAfterMs) break;
        try {
          await this.deps.sleep(wait, meta.signal);
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
      const need = op.maxCost(order[order.length - 1] ?? chain[0]);
      return fail(
        budgetExhausted(refused, need, held, meta, this.deps.now()),
        'budget_exhausted',
        null,
      );
    }
    return fail(failureError(last, abandoned), 'failed', null);
  }

  /**
   * One call with its timeout. It ends when the call settles, when the caller leaves or at
   * the timeout, whichever comes first (a call that ignores its signal is not waited for);
   * settled by hand rather than by racing promises, which cost about eight promises and an
   * abort listener a call (docs/performance.md, "The gateway's per-call work").
   */
  private attempt<T>(
    model: ModelConfig,
    provider: Provider,
    op: Operation<T>,
    meta: RequestMeta,
  ): Promise<Attempt<T>> {
    return new Promise<Attempt<T>>((resolve) => {
      const controller = new AbortController();
      let timedOut = false;
      let settled = false;
      const release = () => meta.signal.removeEventListener('abort', onAbort);
      const fail = (e: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        controller.abort();
        release();
        const failure = classifyFailure(e, { timedOut, aborted: meta.signal.aborted });
        resolve({
          ok: false,
          failure: { ...failure, message: redact(failure.message, this.deps.secrets) },
        });
      };
      const onAbort = () => fail(abortError());
      // (declared before anything can call `fail`)
      const timer = setTimeout(() => {
        timedOut = true;
        fail(abortError());
      }, this.deps.config.reliability.timeoutMs);
      if (meta.signal.aborted) controller.abort();
      else meta.signal.addEventListener('abort', onAbort, { once: true });
      let call: Promise<T>;
      try {
        call = op.call(model, provider, controller.signal);
      } catch (e) {
        return fail(e);
      }
      if (meta.signal.aborted) fail(abortError());
      call.then((value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ok: true, value, controller, release });
      }, fail);
    });
  }
}
