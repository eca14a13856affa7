import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { currentTrace, withTrace, type TraceContext } from './trace';

export { SpanKind };

/** Set once the OTLP exporter runs; until then no span is made (the trace ids stay ours). */
let tracer: Tracer | undefined;
let started: Promise<{ shutdown(): Promise<void> } | undefined> | undefined;

/** Whether spans are exported (`OTEL_EXPORTER_OTLP_ENDPOINT` was set at start). */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/**
 * Starts the OpenTelemetry SDK with an OTLP/HTTP exporter when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; otherwise loads nothing and every span
 * helper below stays on its no-op path. Once per process (services run together share one
 * provider, named by the first caller). `shutdown()` exports what is still buffered.
 *
 * @example
 * const tracing = await startTracing('router');
 * // … on shutdown:
 * await tracing?.shutdown();
 */
export function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ shutdown(): Promise<void> } | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return Promise.resolve(undefined);
  }
  started ??= (async () => {
    // Loaded only here: a process without an endpoint never requires the SDK.
    const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-node');
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/$/, '');
    const exporter = new OTLPTraceExporter({
      url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    });
    const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
    return provide(
      env.OTEL_SERVICE_NAME ?? serviceName,
      new BatchSpanProcessor(exporter, delay > 0 ? { scheduledDelayMillis: delay } : {}),
    );
  })();
  return started;
}

/**
 * Starts the SDK with its spans handed to `processor` only, exported nowhere: what the span
 * helpers cost with the SDK loaded, whatever an exporter adds (the overhead bench,
 * `bench/otel-overhead.bench.ts`). Once per process, as `startTracing`; `shutdown()` unloads
 * it, after which `tracingEnabled()` is false again.
 */
export function startUnexportedTracing(
  serviceName: string,
  processor: SpanProcessor,
): Promise<{ shutdown(): Promise<void> }> {
  started ??= provide(serviceName, processor);
  return started as Promise<{ shutdown(): Promise<void> }>;
}

async function provide(
  serviceName: string,
  processor: SpanProcessor,
): Promise<{ shutdown(): Promise<void> }> {
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processor],
  });
  tracer = provider.getTracer('dirigent');
  return {
    shutdown: async () => {
      tracer = undefined;
      started = undefined;
      await provider.shutdown();
    },
  };
}

/** A span under way: its ids are the trace context its children and messages carry. */
export interface ActiveSpan extends TraceContext {
  end(error?: unknown): void;
}

const remote = (c: TraceContext) => ({
  traceId: c.traceId,
  spanId: c.spanId,
  traceFlags: parseInt(c.flags, 16),
  isRemote: true,
});

/**
 * Starts an exported span, child of `parent` (a context read from a `traceparent`, or the
 * current one), with span links to `links`. Only called when {@link tracingEnabled}.
 */
export function startSpan(
  name: string,
  kind: SpanKind,
  parent: TraceContext | undefined,
  attributes?: Attributes,
  links: readonly TraceContext[] = [],
): ActiveSpan {
  const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, remote(parent)) : ROOT_CONTEXT;
  const span = tracer!.startSpan(
    name,
    {
      kind,
      attributes,
      ...(links.length ? { links: links.map((l) => ({ context: remote(l) })) } : {}),
    },
    ctx,
  );
  const sc = span.spanContext();
  let ended = false;
  return {
    traceId: sc.traceId,
    spanId: sc.spanId,
    flags: sc.traceFlags.toString(16).padStart(2, '0'),
    end(error?: unknown) {
      if (ended) return;
      ended = true;
      if (error !== undefined) {
        const message = error instanceof Error ? error.message : String(error);
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      }
      span.end();
    },
  };
}

/** Runs `fn` in `span`'s trace and ends the span with `fn`'s outcome. */
async function within<T>(span: ActiveSpan, fn: () => Promise<T>): Promise<T> {
  try {
    const result = await withTrace(span, fn);
    span.end();
    return result;
  } catch (e) {
    span.end(e);
    throw e;
  }
}

/**
 * Runs `fn` in a child span of the current trace (a model call, a slow step); without an
 * exporter it only calls `fn`.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracer) return fn();
  return within(startSpan(name, SpanKind.INTERNAL, currentTrace(), attributes), fn);
}

/**
 * Runs `fn` in the root span of a new trace with a span link to `cause`: how work done later
 * (a timer firing) is tied to what asked for it, its trace not made part of that one.
 * Without an exporter it only calls `fn`.
 */
export async function withLinkedTrace<T>(
  name: string,
  attributes: Attributes,
  cause: TraceContext | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracer) return fn();
  const links = cause ? [cause] : [];
  return within(startSpan(name, SpanKind.INTERNAL, undefined, attributes, links), fn);
}
