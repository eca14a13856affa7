import { randomUUID } from 'node:crypto';
import type { LlmConfig, ModelConfig } from './config';
import type { Executed, Held, Operation } from './operation';
import { costMicros, microsToUsd, usdToMicros, type Micros } from './pricing';
import type {
  BudgetStore,
  RequestMeta,
  ReserveResult,
  UsageOutcome,
  UsageRecord,
  UsageSink,
} from './ports';

const DAY_MS = 86_400_000;
const ADMITTED: ReserveResult = Object.freeze({ ok: true as const });
let dayCache = { start: 0, day: '1970-01-01' };

/** The UTC day a budget period belongs to (the last one is kept: every call asks). */
export function budgetDay(ms: number): string {
  const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  if (start !== dayCache.start)
    dayCache = { start, day: new Date(start).toISOString().slice(0, 10) };
  return dayCache.day;
}

/** What a ledger row says about the call besides the operation. */
interface Result {
  started: number;
  attempts: number;
  fallbacks: string[];
  model: ModelConfig | null;
  inputTokens: number;
  outputTokens: number;
  outcome: UsageOutcome;
  error?: string;
}

export interface AccountingDeps {
  config: LlmConfig;
  budgets: BudgetStore;
  usage: UsageSink;
  now: () => number;
}

/**
 * A call's money: reserves its maximum cost before an attempt (growing the reservation
 * when a fallback costs more), then settles the actual cost in the background and writes
 * the usage record.
 */
export class Accounting {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly deps: AccountingDeps) {}

  /** Reserves up to `micros` in total for `held` (only the difference to what it holds). */
  /** (A value, not a promise, when the store admits at once: see `BudgetStore.reserveNow`.) */
  reserve(held: Held, micros: Micros): ReserveResult | Promise<ReserveResult> {
    if (micros <= held.micros) return ADMITTED;
    const budgets = this.deps.config.budgets;
    const configuredGuild = budgets.guilds[held.guildId];
    const configured = {
      guildMicros: configuredGuild === undefined ? undefined : usdToMicros(configuredGuild),
      defaultMicros: usdToMicros(budgets.defaultGuildUsdPerDay),
    };
    const store = this.deps.budgets;
    const delta = micros - held.micros;
    if (store.reserveNow?.(held.guildId, held.day, delta, configured)) {
      held.micros = micros;
      return ADMITTED;
    }
    return store.reserve(held.guildId, held.day, delta, configured).then((result) => {
      if (result.ok) held.micros = micros;
      return result;
    });
  }

  /** Settles an answered call at the cost of the tokens it used; returns that cost in USD. */
  finish<T>(
    op: Operation<T>,
    meta: RequestMeta,
    done: Executed<T>,
    inputTokens: number,
    outputTokens: number,
    outcome: UsageOutcome,
    error?: string,
  ): number {
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
    return microsToUsd(cost);
  }

  /** Releases what a call that never answered reserved, and records why. */
  finishFailure<T>(
    op: Operation<T>,
    meta: RequestMeta,
    held: Held,
    r: Pick<Result, 'started' | 'attempts' | 'fallbacks' | 'model' | 'outcome'> & { error: string },
  ): void {
    this.settleAndRecord(op, meta, held, 0, { ...r, inputTokens: 0, outputTokens: 0 });
  }

  /** Waits for background settlements (for shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch(() => undefined).finally(() => this.pending.delete(t));
    this.pending.add(t);
  }

  private settleAndRecord<T>(
    op: Operation<T>,
    meta: RequestMeta,
    held: Held,
    costMicrosActual: Micros,
    r: Result,
  ): void {
    const settle = this.deps.budgets.settle;
    if (settle && (held.micros > 0 || costMicrosActual > 0)) {
      this.track(
        settle.call(this.deps.budgets, held.guildId, held.day, held.micros, costMicrosActual),
      );
    }
    const record: UsageRecord = {
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
      latencyMs: Math.max(0, this.deps.now() - r.started),
      outcome: r.outcome,
      ...(r.error ? { error: r.error.slice(0, 500) } : {}),
      fallbacks: r.fallbacks,
      attempts: r.attempts,
    };
    this.deps.usage.record(record);
  }
}
