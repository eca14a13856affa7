import type { Msg } from '@nats-io/nats-core';
import { DomainError, ErrorCodes, TRACEPARENT_HEADER, type Reply } from '@dirigent/contracts';
import { failureReply, type Logger } from './errors';
import { nextSpan, parseTraceparent, withTrace, type TraceContext } from './trace';
import { SpanKind, startSpan, tracingEnabled } from './tracing';

/** The body of a request: a JSON object (an empty body is `{}`), else a BAD_REQUEST error. */
function requestBody(msg: Msg): object {
  let body: unknown;
  try {
    body = msg.data.length ? msg.json() : {};
  } catch {
    throw new DomainError(ErrorCodes.BAD_REQUEST, 'body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError(ErrorCodes.BAD_REQUEST, 'body must be a JSON object', [
      { field: '', messages: ['body must be a JSON object'] },
    ]);
  }
  return body;
}

/** Who answers the requests of one subscription (see {@link answerRequest}). */
export interface Responder {
  /** The subject served, for the log of a failure. */
  readonly subject: string;
  readonly log: Logger;
  /** The reply envelope for a request's body: at once, or a promise of it. */
  reply(body: object, msg: Msg): Reply<unknown> | Promise<Reply<unknown>>;
  /** Told each reply once it is sent, with `performance.now()` of the request's arrival. */
  replied?(reply: Reply<unknown>, startedAt: number): void;
}

const replyOf = (responder: Responder, body: object, msg: Msg) => responder.reply(body, msg);

/**
 * Answers one NATS request with the reply envelope: a body that is not a JSON object gets
 * `BAD_REQUEST`; the responder produces the reply; whatever it throws becomes a failure reply
 * (a DomainError its own code, anything else `INTERNAL`). Runs the responder in the caller's
 * W3C trace.
 *
 * A reply the responder returns at once is sent at once, in the subscription's callback, as a
 * raw responder would; a promise is followed with `then` rather than `async`/`await`. With
 * AsyncLocalStorage on (trace context, ORM request contexts) every promise costs an
 * async-hooks call, and the reply waits for each (docs/performance.md, "The direct request handlers"). Nothing is
 * made per request on that path but what the request needs (no closures: the responder is
 * one object per subscription), which keeps the young generation's garbage down
 * (docs/performance.md, "The coordinator's bundle and young generation").
 */
export function answerRequest(msg: Msg, responder: Responder): void {
  const startedAt = performance.now();
  let reply: Reply<unknown> | Promise<Reply<unknown>>;
  try {
    const body = requestBody(msg);
    const parent = parseTraceparent(msg.headers?.get(TRACEPARENT_HEADER));
    if (tracingEnabled()) return answerTraced(msg, responder, body, parent, startedAt);
    reply = withTrace(nextSpan(parent), replyOf, responder, body, msg);
  } catch (e) {
    return send(msg, responder, failureReply(e, responder.log, responder.subject), startedAt);
  }
  if (!(reply instanceof Promise)) return send(msg, responder, reply, startedAt);
  reply.then(
    (value) => send(msg, responder, value, startedAt),
    (e: unknown) =>
      send(msg, responder, failureReply(e, responder.log, responder.subject), startedAt),
  );
}

/** {@link answerRequest} with an exported span around the handler (OTLP on). */
function answerTraced(
  msg: Msg,
  responder: Responder,
  body: object,
  parent: TraceContext | undefined,
  startedAt: number,
): void {
  const span = startSpan(`rpc ${responder.subject}`, SpanKind.SERVER, parent, {
    'messaging.system': 'nats',
    'messaging.destination.name': msg.subject,
  });
  const done = (reply: Reply<unknown>) => {
    span.end(reply.ok ? undefined : reply.error.code);
    send(msg, responder, reply, startedAt);
  };
  const failed = (e: unknown) => done(failureReply(e, responder.log, responder.subject));
  try {
    const reply = withTrace(span, replyOf, responder, body, msg);
    if (reply instanceof Promise) reply.then(done, failed);
    else done(reply);
  } catch (e) {
    failed(e);
  }
}

function send(msg: Msg, responder: Responder, reply: Reply<unknown>, startedAt: number): void {
  try {
    const text = JSON.stringify(reply);
    if (msg.reply) msg.respond(text);
  } catch (e) {
    // A result JSON cannot carry (a BigInt, a cycle), or larger than the server takes (its
    // max_payload), is a failure of the handler too: the requester gets INTERNAL, not a
    // timeout, and a throw here would be an unhandled rejection on the path of a promise.
    reply = failureReply(e, responder.log, responder.subject);
    if (msg.reply) msg.respond(JSON.stringify(reply));
  }
  responder.replied?.(reply, startedAt);
}
