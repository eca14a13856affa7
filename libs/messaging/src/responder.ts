import type { Msg } from '@nats-io/nats-core';
import { DomainError, ErrorCodes, type Reply } from '@dirigent/contracts';
import { failureReply, type Logger } from './errors';
import { nextSpan, parseTraceparent, withTrace } from './trace';

/**
 * Answers one NATS request with the reply envelope: a body that is not a JSON object gets
 * `BAD_REQUEST`; `run` produces the reply; whatever it throws becomes a failure reply (a
 * DomainError its own code, anything else `INTERNAL`). Runs `run` in the caller's W3C trace.
 * Resolves to the reply it sent.
 */
export async function answerRequest(
  msg: Msg,
  subject: string,
  log: Logger,
  run: (body: object) => Promise<Reply<unknown>>,
): Promise<Reply<unknown>> {
  const trace = nextSpan(parseTraceparent(msg.headers?.get('traceparent')));
  let reply: Reply<unknown>;
  try {
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
    reply = await withTrace(trace, () => run(body as object));
  } catch (e) {
    reply = failureReply(e, log, subject);
  }
  if (msg.reply) msg.respond(JSON.stringify(reply));
  return reply;
}
