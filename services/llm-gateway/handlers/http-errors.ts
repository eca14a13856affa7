import { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LLM_GUILD } from '@dirigent/contracts';
import { GatewayError, type RequestMeta, type Routed } from '@dirigent/llm';

/** Budgets are per guild; a caller that names none spends from this one. */
export const DEFAULT_GUILD = 'global';

const log = new Logger('llm-gateway:http');

/** Answers `body` as JSON (without Express: the chat route is served before it). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

/** Answers an error in OpenAI's shape. The gateway is the only retry loop: clients are told not to retry. */
export function sendError(res: ServerResponse, e: unknown): void {
  const err =
    e instanceof GatewayError
      ? e
      : new GatewayError(
          500,
          'server_error',
          'internal_error',
          'internal error; see the gateway log',
        );
  if (!(e instanceof GatewayError)) log.error(`unexpected failure: ${(e as Error).stack ?? e}`);
  if (res.headersSent) {
    if (!res.writableEnded) res.end(`data: ${JSON.stringify(err.toBody())}\n\n`);
    return;
  }
  res.setHeader('x-should-retry', 'false');
  if (err.retryAfterSec !== undefined) res.setHeader('retry-after', String(err.retryAfterSec));
  sendJson(res, err.status, err.toBody());
}

/** A request header's (first) value. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The caller's guild and purpose, and a signal that fires when the caller disconnects. */
export function requestMeta(req: IncomingMessage, res: ServerResponse): RequestMeta {
  const guildId = header(req, 'x-dirigent-guild') ?? DEFAULT_GUILD;
  if (!LLM_GUILD.test(guildId))
    throw new GatewayError(
      400,
      'invalid_request_error',
      'invalid_guild',
      'x-dirigent-guild: must be 1-64 letters, digits, _ or -',
      'x-dirigent-guild',
    );
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return { guildId, purposeHeader: header(req, 'x-dirigent-purpose'), signal: controller.signal };
}

export function routingHeaders(res: ServerResponse, r: Routed): void {
  res.setHeader('x-dirigent-model', r.model.id);
  if (r.purpose) res.setHeader('x-dirigent-purpose', r.purpose);
  if (r.fallbacks.length) res.setHeader('x-dirigent-fallbacks', r.fallbacks.join(','));
  res.setHeader('x-dirigent-attempts', String(r.attempts));
}
