import type { IncomingHttpHeaders } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { abortError } from './failures';

/** An upstream's non-2xx answer, shaped as the SDKs' `APIError` (`status`, `headers`, message). */
export class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    message: string,
    readonly error?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamStatusError';
  }
}

/** The SDKs' message for a status error: `<status> <error.message>`. */
function statusMessage(status: number, text: string): { message: string; error?: unknown } {
  let json: { error?: unknown } | undefined;
  try {
    json = JSON.parse(text) as { error?: unknown };
  } catch {
    json = undefined;
  }
  const error = json && typeof json === 'object' ? json.error : undefined;
  const detail = error
    ? typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : (error as { message?: unknown }).message !== undefined
        ? JSON.stringify((error as { message: unknown }).message)
        : JSON.stringify(error)
    : json
      ? undefined
      : text;
  return { message: detail ? `${status} ${detail}` : `${status} status code (no body)`, error };
}

/** undici's raw response headers (name, value, name, value…) as Node's lower-cased record. */
function headerRecord(raw: Buffer[] | string[] | null): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; raw && i + 1 < raw.length; i += 2) {
    const name = raw[i].toString().toLowerCase();
    const value = raw[i + 1].toString();
    const had = headers[name];
    headers[name] = had === undefined ? value : ([] as string[]).concat(had, value);
  }
  return headers;
}

/**
 * One JSON answer, read with undici's handler interface (no response stream, no body
 * mixin): chunks are kept until the end, then parsed once. The caller's signal aborts the
 * request wherever it is (queued, sent, half read).
 */
class JsonAnswer implements Dispatcher.DispatchHandlers {
  private status = 0;
  private raw: Buffer[] | string[] | null = null;
  private readonly chunks: Buffer[] = [];
  private abort?: (reason?: Error) => void;
  private readonly onAbort = () => this.abort?.(abortError());

  constructor(
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (e: Error) => void,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abort = abort;
    if (this.signal.aborted) abort(abortError());
  }

  onHeaders(status: number, raw: Buffer[] | string[] | null): boolean {
    this.status = status;
    this.raw = raw;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    const c = this.chunks;
    const text = (c.length === 1 ? c[0] : Buffer.concat(c)).toString('utf8');
    const status = this.status;
    if (status < 200 || status > 299) {
      const { message, error } = statusMessage(status, text);
      return this.reject(new UpstreamStatusError(status, headerRecord(this.raw), message, error));
    }
    try {
      this.resolve(JSON.parse(text));
    } catch {
      this.reject(new Error(`upstream answered ${status} with a body that is not JSON`));
    }
  }

  onError(e: Error): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.reject(e);
  }
}

/**
 * JSON POSTs to one upstream over undici's keep-alive connection pool: the request path of
 * the gateway's plain chat completions, without an SDK's per-request machinery (header
 * building, retry loop, fetch's web streams) and without `http.request`'s (a
 * `ClientRequest`, an `IncomingMessage` stream and the agent's bookkeeping per call: at 50
 * clients the gateway spends ~23% less CPU a call; docs/performance.md, "The upstream
 * client on undici"). A request still queued when its connection closes is sent on another one (undici),
 * and idle connections are closed before the upstream's keep-alive hint runs out; a request
 * already written to a connection the upstream closes at that instant fails as a
 * connection failure, which the failover retries. No time limit of its own: the caller's
 * signal (the failover's timeout, the client leaving) ends a request.
 *
 * @example
 * const up = new UpstreamHttp('http://127.0.0.1:11434/v1', 'sk-…');
 * const completion = await up.postJson('/chat/completions', body, signal);
 */
export class UpstreamHttp {
  private readonly pool: Pool;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  /** The request path per relative path, resolved once. */
  private readonly paths = new Map<string, string>();

  constructor(baseUrl: string, apiKey: string) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.pool = new Pool(this.base.origin, { headersTimeout: 0, bodyTimeout: 0 });
    this.headers = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'dirigent-llm-gateway',
    };
  }

  private path(relative: string): string {
    let p = this.paths.get(relative);
    if (p === undefined) {
      const url = new URL(relative.replace(/^\//, ''), this.base);
      p = url.pathname + url.search;
      this.paths.set(relative, p);
    }
    return p;
  }

  postJson(path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.reject(abortError());
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      this.pool.dispatch(
        {
          path: this.path(path),
          method: 'POST',
          headers: this.headers, // undici adds the content-length of a Buffer body
          body: payload,
        },
        new JsonAnswer(resolve, reject, signal),
      );
    });
  }

  /** Closes the pooled connections (requests in flight are ended with an error). */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }
}
