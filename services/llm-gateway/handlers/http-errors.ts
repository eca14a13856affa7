import { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LLM_GUILD } from '@dirigent/contracts';
import { GatewayError, type RequestMeta, type Routed } from '@dirigent/llm';

/** Budgets are per guild; a caller that names none spends from this one. */
export const DEFAULT_GUILD = 'global';

const log = new Logger('llm-gateway:http');

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `body` as JSON (without Express: the chat route is served before it), its
 * headers given to `writeHead` at once as name/value pairs (`extra`, e.g.
 * {@link routingHeaderList}): one header block built with the body, no `setHeader` a header.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra?: string[],
): void {
  const text = JSON.stringify(body);
  // (a content-length of its own: after writeHead, `end` no longer sets one, and the answer
  // would go out chunked)
  const headers = ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(text))];
  if (extra) for (const h of extra) headers.push(h);
  res.writeHead(status, headers);
  res.end(text);
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

/** The routing headers of an answer as name/value pairs (see {@link routingHeaders}). */
export function routingHeaderList(r: Routed): string[] {
  const h = ['x-dirigent-model', r.model.id];
  if (r.purpose) h.push('x-dirigent-purpose', r.purpose);
  if (r.fallbacks.length) h.push('x-dirigent-fallbacks', r.fallbacks.join(','));
  h.push('x-dirigent-attempts', String(r.attempts));
  return h;
}

export function routingHeaders(res: ServerResponse, r: Routed): void {
  res.setHeader('x-dirigent-model', r.model.id);
  if (r.purpose) res.setHeader('x-dirigent-purpose', r.purpose);
  if (r.fallbacks.length) res.setHeader('x-dirigent-fallbacks', r.fallbacks.join(','));
  res.setHeader('x-dirigent-attempts', String(r.attempts));
}
