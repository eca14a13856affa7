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

/** A child span of the current context, or a new trace when there is none. */
export function nextSpan(parent: TraceContext | undefined = currentTrace()): TraceContext {
  // randomUUID draws from a cached entropy pool: much cheaper per call than randomBytes.
  const hex = randomUUID().replace(/-/g, '');
  return {
    traceId: parent?.traceId ?? hex,
    spanId: hex.slice(16),
    flags: parent?.flags ?? '01',
  };
}

export function currentTrace(): TraceContext | undefined {
  return storage.getStore();
}

export function withTrace<T>(ctx: TraceContext, fn: () => T): T {
  return storage.run(ctx, fn);
}
