/**
 * Why an upstream attempt failed, and so what the gateway does next:
 * - `retryable`: 429, 5xx, timeout, connection failure — retry with backoff, then fall back;
 * - `skip`: the deployment refuses (bad key, unknown upstream model, unsupported) — next fallback;
 * - `overflow`: the prompt exceeds the model's window — a larger-window model;
 * - `caller`: the request itself is wrong (400/422) — answered to the caller as is;
 * - `aborted`: the caller went away — stop.
 */
export type Failure =
  | {
      kind: 'retryable';
      reason: 'rate_limited' | 'server_error' | 'timeout' | 'connection';
      status?: number;
      retryAfterMs?: number;
      message: string;
    }
  | { kind: 'skip'; status?: number; message: string }
  | { kind: 'overflow'; message: string }
  | { kind: 'caller'; status: number; message: string }
  | { kind: 'aborted'; message: string };

const OVERFLOW =
  /context[ _-]?length|context window|maximum context|prompt is too long|too many (input )?tokens|input is too long/i;

function header(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function')
    return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const ra = header(headers, 'retry-after');
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.ceil(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A provider's own refusal that no retry can fix (e.g. a model kind without embeddings). */
export class UnsupportedError extends Error {}

/**
 * Classifies what an SDK (openai or @anthropic-ai/sdk) threw. `timedOut`/`aborted` say
 * which of the gateway's own signals, if any, cancelled the call.
 */
export function classifyFailure(
  e: unknown,
  signals: { timedOut: boolean; aborted: boolean },
): Failure {
  if (signals.aborted) return { kind: 'aborted', message: 'client closed the request' };
  if (signals.timedOut)
    return { kind: 'retryable', reason: 'timeout', message: 'upstream timed out' };
  if (e instanceof UnsupportedError) return { kind: 'skip', message: e.message };
  const err = e as { status?: unknown; headers?: unknown; message?: unknown; name?: string };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  const status = typeof err?.status === 'number' ? err.status : undefined;
  if (status === undefined) {
    if (err?.name === 'APIUserAbortError' || err?.name === 'AbortError')
      return { kind: 'aborted', message };
    return { kind: 'retryable', reason: 'connection', message };
  }
  if (status === 429 || status === 408 || status === 409 || status >= 500) {
    return {
      kind: 'retryable',
      reason: status === 429 ? 'rate_limited' : status === 408 ? 'timeout' : 'server_error',
      status,
      retryAfterMs: retryAfterMs(err.headers),
      message,
    };
  }
  if ((status === 400 || status === 413 || status === 422) && OVERFLOW.test(message))
    return { kind: 'overflow', message };
  if (status === 400 || status === 422) return { kind: 'caller', status, message };
  return { kind: 'skip', status, message };
}

/** The error a request ended by its signal fails with (`classifyFailure` reads it as aborted). */
export const abortError = (): Error => Object.assign(new Error('aborted'), { name: 'AbortError' });

/**
 * Per-deployment circuit breaker: after `threshold` consecutive failed attempts the
 * deployment is skipped for `cooldownMs`; after that one request may try it again, and
 * a success closes the breaker.
 *
 * @example
 * const b = new Cooldowns(3, 30_000);
 * if (b.available('gpt-4o', Date.now())) { ... b.failure('gpt-4o', Date.now()); }
 */
export class Cooldowns {
  private readonly state = new Map<string, { failures: number; until: number }>();

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
  ) {}

  available(id: string, now: number): boolean {
    const s = this.state.get(id);
    return !s || s.until <= now;
  }

  success(id: string): void {
    this.state.delete(id);
  }

  /** Returns true when this failure opened (or re-opened) the cooldown. */
  failure(id: string, now: number): boolean {
    const s = this.state.get(id) ?? { failures: 0, until: 0 };
    s.failures += 1;
    const opened = s.failures >= this.threshold;
    if (opened) s.until = now + this.cooldownMs;
    this.state.set(id, s);
    return opened;
  }

  /** Deployments currently cooling down, with the time they come back. */
  snapshot(now: number): { id: string; until: number }[] {
    return [...this.state.entries()]
      .filter(([, s]) => s.until > now)
      .map(([id, s]) => ({ id, until: s.until }));
  }
}

/** Exponential backoff with full jitter, capped. `random` is injected so tests replay. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
