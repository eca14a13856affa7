import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, parseChatRequest } from '@dirigent/llm';
import type { CompleteChat } from '../application/complete-chat';
import type { LlmGatewayConfig } from '../config';
import { authorized } from './auth';
import { requestMeta, routingHeaderList, routingHeaders, sendJson } from './http-errors';

/** Large prompts are normal here; Nest's default JSON limit (100 kB) is not. */
export const BODY_LIMIT_BYTES = 32 * 1024 * 1024;
export const BODY_LIMIT = '32mb';

/** 401 unless the caller may use `/v1/*` (see {@link authorized}). */
export function checkBearer(req: IncomingMessage, config: LlmGatewayConfig): void {
  if (!authorized(req, [config.DIRIGENT_GATEWAY_TOKEN]))
    throw new GatewayError(
      401,
      'invalid_request_error',
      'invalid_api_key',
      config.DIRIGENT_GATEWAY_TOKEN
        ? 'missing or wrong bearer token'
        : 'DIRIGENT_GATEWAY_TOKEN is not set: only loopback callers are served',
    );
}

export function invalid(problem: { field: string; message: string }): GatewayError {
  return new GatewayError(
    400,
    'invalid_request_error',
    'invalid_request',
    problem.message,
    problem.field,
  );
}

/** What an unreadable body is answered with (the parser's message in parentheses). */
export function bodyError(tooLarge: boolean, message: string): GatewayError {
  return new GatewayError(
    tooLarge ? 413 : 400,
    'invalid_request_error',
    tooLarge ? 'body_too_large' : 'invalid_json',
    tooLarge ? `(body): larger than ${BODY_LIMIT}` : `(body): not valid JSON (${message})`,
    '(body)',
  );
}

/** A request body's text, read with the stream's events (an async iterator costs a few promises a chunk). */
function readText(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT_BYTES) return Promise.reject(bodyError(true, ''));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= BODY_LIMIT_BYTES) return void chunks.push(c);
      req.off('data', onData);
      req.resume();
      reject(bodyError(true, ''));
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () =>
      resolve(
        chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      ),
    );
  });
}

/**
 * Reads a JSON request body as Express's JSON parser would (strict: an object or an
 * array; empty is `{}`), or throws the gateway's 400/413.
 */
export function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return readText(req).then(parseJsonText);
}

function parseJsonText(text: string): unknown {
  const first = text.trimStart()[0];
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') throw bodyError(false, `Unexpected token ${first}`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw bodyError(false, (e as Error).message);
  }
}

/** Resolves once `res` can take more (or is closed). */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * `POST /v1/chat/completions` once the caller is authorized and the body read: validate,
 * complete (whole or as SSE) and answer. Errors are thrown for the caller to answer.
 */
export async function serveChat(
  chats: CompleteChat,
  body: unknown,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const parsed = parseChatRequest(body);
  if (!parsed.ok) throw invalid(parsed.problem);
  const meta = requestMeta(req, res);
  if (!parsed.value.stream) {
    const result = await chats.run(parsed.value, meta);
    sendJson(res, 200, result.completion, routingHeaderList(result));
    return;
  }
  const stream = await chats.stream(parsed.value, meta);
  routingHeaders(res, stream);
  res.statusCode = 200;
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  try {
    for await (const chunk of stream.chunks) {
      if (res.writableEnded || meta.signal.aborted) break;
      // Back-pressure: a caller that reads slower than the upstream writes holds the
      // upstream back (its socket's window) instead of filling this process's memory.
      if (!res.write(`data: ${JSON.stringify(chunk)}\n\n`)) await drained(res);
    }
    if (!res.writableEnded) res.end('data: [DONE]\n\n');
  } finally {
    await stream.chunks.return();
  }
}
