import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelConfig, PurposeRoute } from './config';
import type { Micros } from './pricing';

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
  /**
   * Admits `micros` at once when the store can without any I/O (from credit it holds),
   * exactly as `reserve` would; `false` means nothing was taken: call `reserve`. Lets the
   * common call skip the promises of an asynchronous `reserve`.
   */
  reserveNow?(
    guildId: string,
    day: string,
    micros: Micros,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): boolean;
  /**
   * Releases `reservedMicros` and books `actualMicros` as spent. Absent in a store whose
   * settlement travels with the usage record (the gateway's ledger): nothing runs for it.
   */
  settle?(
    guildId: string,
    day: string,
    reservedMicros: Micros,
    actualMicros: Micros,
  ): Promise<void>;
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
