import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleControl } from './control-api';
import type { FakeDiscord } from './fake-discord';
import { HttpError } from './http-error';
import { findRoute, restRoutes } from './routes';

/** A scripted answer for the next requests matching a route. */
export interface RouteFailure {
  method: string;
  /** Exact API path after `/api/v10`, e.g. `/channels/123/messages`, or a RegExp. */
  path: string | RegExp;
  /** HTTP status; 429 adds the rate-limit headers and body. */
  status: number;
  times?: number;
  /** For 429: seconds to wait (fractional allowed). */
  retryAfter?: number;
  /** Discord JSON error code (e.g. 50001 Missing Access). */
  code?: number;
  message?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
  at: number;
  status: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The failures scripted with `failNext`, each used up after its `times`. */
export class ScriptedFailures {
  private readonly pending: (RouteFailure & { left: number })[] = [];

  add(failure: RouteFailure): void {
    this.pending.push({ ...failure, left: failure.times ?? 1 });
  }

  take(method: string, path: string): RouteFailure | undefined {
    const failure = this.pending.find(
      (f) =>
        f.left > 0 &&
        f.method.toUpperCase() === method &&
        (typeof f.path === 'string' ? f.path === path : f.path.test(path)),
    );
    if (!failure) return undefined;
    failure.left -= 1;
    if (failure.left <= 0) this.pending.splice(this.pending.indexOf(failure), 1);
    return failure;
  }
}

function failureAnswer(f: RouteFailure): [number, unknown, Record<string, string>] {
  if (f.status !== 429) {
    return [f.status, { message: f.message ?? `scripted ${f.status}`, code: f.code ?? 0 }, {}];
  }
  const after = f.retryAfter ?? 1;
  return [
    429,
    { message: 'You are being rate limited.', retry_after: after, global: false },
    {
      'retry-after': String(after),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset-after': String(after),
      'x-ratelimit-bucket': 'fake-bucket',
      'x-ratelimit-scope': 'user',
    },
  ];
}

/**
 * One HTTP request to the local Discord: `/_fake/…` goes to the control API, everything
 * else is the REST API (recorded, checked for the bot token, maybe answered by a scripted
 * failure, then routed).
 */
export async function handleHttp(
  fake: FakeDiscord,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const method = (req.method ?? 'GET').toUpperCase();
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (url.pathname.startsWith('/_fake/')) {
    await control(fake, method, decodeURIComponent(url.pathname), raw, res);
    return;
  }
  const path = decodeURIComponent(url.pathname.replace(/^\/api(\/v\d+)?/, ''));
  const record: RecordedRequest = {
    method,
    path,
    query: url.searchParams,
    body: undefined,
    at: Date.now(),
    status: 0,
  };
  fake.requests.push(record);
  if (fake.requests.length > 10_000) fake.requests.splice(0, 5_000);
  const reply = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
    record.status = status;
    if (payload === undefined) {
      res.writeHead(status, headers).end();
    } else {
      res.writeHead(status, { ...JSON_HEADERS, ...headers }).end(JSON.stringify(payload));
    }
    fake.emit('request', record);
  };
  try {
    if (raw) {
      const type = req.headers['content-type'] ?? '';
      if (!type.includes('application/json')) {
        throw new HttpError(400, 50035, 'the fake accepts JSON bodies only');
      }
      record.body = JSON.parse(raw);
    }
    const failure = fake.failures.take(method, path);
    if (failure) {
      reply(...failureAnswer(failure));
      return;
    }
    const needsAuth = !/^\/(webhooks|interactions)\//.test(path);
    if (needsAuth && req.headers.authorization !== `Bot ${fake.token}`) {
      throw new HttpError(401, 0, '401: Unauthorized');
    }
    const seg = path.split('/').filter(Boolean);
    const route = findRoute(restRoutes, method, seg);
    if (!route) throw new HttpError(404, 0, `404: Not Found (${method} ${path})`);
    reply(...route.run(fake, { seg, query: url.searchParams, body: record.body ?? {} }));
  } catch (e) {
    if (e instanceof HttpError) {
      reply(e.status, { message: e.message, code: e.code });
    } else if (e instanceof SyntaxError) {
      reply(400, { message: 'invalid JSON', code: 50109 });
    } else {
      reply(500, { message: (e as Error).message, code: 0 });
    }
  }
}

async function control(
  fake: FakeDiscord,
  method: string,
  path: string,
  raw: string,
  res: ServerResponse,
) {
  let status: number;
  let payload: unknown;
  try {
    [status, payload] = await handleControl(fake, method, path, raw ? JSON.parse(raw) : {});
  } catch (e) {
    status = e instanceof HttpError ? e.status : e instanceof SyntaxError ? 400 : 500;
    payload = { error: (e as Error).message };
  }
  if (payload === undefined) res.writeHead(status).end();
  else res.writeHead(status, JSON_HEADERS).end(JSON.stringify(payload));
}
