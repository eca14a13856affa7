import type { Msg } from '@nats-io/nats-core';
import { DomainError, ErrorCodes, type Reply } from '@dirigent/contracts';
import { failureReply, type Logger } from './errors';
import { nextSpan, parseTraceparent, withTrace } from './trace';

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

/**
 * Answers one NATS request with the reply envelope: a body that is not a JSON object gets
 * `BAD_REQUEST`; `run` produces the reply; whatever it throws becomes a failure reply (a
 * DomainError its own code, anything else `INTERNAL`). Runs `run` in the caller's W3C trace.
 * `onReply` is told the reply once it is sent.
 *
 * A reply `run` returns at once is sent at once, in the subscription's callback, as a raw
 * responder would; a promise is followed with `then` rather than `async`/`await`. With
 * AsyncLocalStorage on (trace context, ORM request contexts) every promise costs an
 * async-hooks call, and the reply waits for each (docs/performance/turn-path.md).
 */
export function answerRequest(
  msg: Msg,
  subject: string,
  log: Logger,
  run: (body: object) => Reply<unknown> | Promise<Reply<unknown>>,
  onReply?: (reply: Reply<unknown>) => void,
): void {
  const failed = (e: unknown) => send(failureReply(e, log, subject));
  const send = (reply: Reply<unknown>): void => {
    let text: string;
    try {
      text = JSON.stringify(reply);
    } catch (e) {
      // A result JSON cannot carry (a BigInt, a cycle) is a failure of the handler too.
      return failed(e);
    }
    if (msg.reply) msg.respond(text);
    onReply?.(reply);
  };
  let reply: Reply<unknown> | Promise<Reply<unknown>>;
  try {
    const body = requestBody(msg);
    const trace = nextSpan(parseTraceparent(msg.headers?.get('traceparent')));
    reply = withTrace(trace, () => run(body));
  } catch (e) {
    return failed(e);
  }
  if (reply instanceof Promise) reply.then(send, failed);
  else send(reply);
}
