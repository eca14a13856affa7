import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import {
  SpanKind,
  parseTraceparent,
  startSpan,
  tracingEnabled,
  withSpan,
  withTrace,
} from '@dirigent/messaging';
import { PURPOSE_PREFIX } from '@dirigent/llm';
import { DEFAULT_GUILD, header } from './http-errors';

/**
 * Answers an HTTP model call (`answer` answers the request, its failures included) in a
 * server span, child of the caller's W3C `traceparent` header when it sends one, read as
 * the NATS path reads its header. Only called when `tracingEnabled()`: the routes check it
 * first and otherwise call their answer directly.
 */
export async function inServerSpan(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  answer: () => Promise<void>,
): Promise<void> {
  const span = startSpan(
    `${req.method} ${route}`,
    SpanKind.SERVER,
    parseTraceparent(header(req, 'traceparent')),
    { 'http.request.method': req.method ?? '', 'http.route': route },
  );
  try {
    await withTrace(span, answer);
  } finally {
    span.end(res.statusCode >= 500 ? `HTTP ${res.statusCode}` : undefined);
  }
}

/**
 * `answer(traced)`, in a server span ({@link inServerSpan}) when tracing is on. For the
 * routes Express serves; the chat route, the hot path, checks `tracingEnabled()` itself
 * so that nothing is made for spans when it is off.
 */
export function inSpanIfTracing(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  answer: (traced: boolean) => Promise<void>,
): Promise<void> {
  if (!tracingEnabled()) return answer(false);
  return inServerSpan(req, res, route, () => answer(true));
}

/**
 * The model call of an HTTP request as the span the NATS path makes for it (`model chat`,
 * `model embed`), under the request's server span; a streamed answer's span ends with the
 * stream. Only called in {@link inServerSpan}.
 */
export function modelSpan<T>(
  name: string,
  req: IncomingMessage,
  body: unknown,
  call: () => Promise<T>,
): Promise<T> {
  const model = (body as { model?: unknown } | null)?.model;
  const purpose =
    header(req, 'x-dirigent-purpose') ??
    (typeof model === 'string' && model.startsWith(PURPOSE_PREFIX)
      ? model.slice(PURPOSE_PREFIX.length)
      : '');
  const attributes: Attributes = {
    'dirigent.purpose': purpose,
    'dirigent.guild_id': header(req, 'x-dirigent-guild') ?? DEFAULT_GUILD,
  };
  return withSpan(name, attributes, call);
}
