import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** W3C trace context (https://www.w3.org/TR/trace-context/), carried in NATS headers. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  flags: string;
}

const storage = new AsyncLocalStorage<TraceContext>();
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function parseTraceparent(value: string | undefined | null): TraceContext | undefined {
  const m = value ? TRACEPARENT.exec(value.trim()) : null;
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return undefined;
  return { traceId: m[1], spanId: m[2], flags: m[3] };
}

export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.flags}`;
}

/**
 * A span whose ids are drawn when first read. Every request and delivery gets a span, but
 * most start no child (nothing they do publishes or sends a request), so most spans' ids are
 * never read; drawing them up front (a UUID and its hex) was about a tenth of the transport's
 * time on a request (docs/performance.md).
 */
class Span implements TraceContext {
  private hex?: string;

  constructor(private readonly parent: TraceContext | undefined) {}

  private ids(): string {
    // randomUUID draws from a cached entropy pool: much cheaper per call than randomBytes.
    return (this.hex ??= randomUUID().replace(/-/g, ''));
  }
  get traceId(): string {
    return this.parent?.traceId ?? this.ids();
  }
  get spanId(): string {
    return this.ids().slice(16);
  }
  get flags(): string {
    return this.parent?.flags ?? '01';
  }
}

/** A child span of the current context, or a new trace when there is none. */
export function nextSpan(parent: TraceContext | undefined = currentTrace()): TraceContext {
  return new Span(parent);
}

export function currentTrace(): TraceContext | undefined {
  return storage.getStore();
}

/** Calls `fn(...args)` in the trace `ctx` (arguments rather than a closure on hot paths). */
export function withTrace<A extends unknown[], T>(
  ctx: TraceContext,
  fn: (...args: A) => T,
  ...args: A
): T {
  return storage.run(ctx, fn, ...args);
}
