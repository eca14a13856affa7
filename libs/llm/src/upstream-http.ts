import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';

/** An upstream's non-2xx answer, shaped as the SDKs' `APIError` (`status`, `headers`, message). */
export class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
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

/**
 * JSON POSTs to one upstream over a keep-alive connection pool: the request path of the
 * gateway's plain chat completions, without an SDK's per-request machinery (header
 * building, retry loop, fetch's web streams). A request that meets a pooled connection the
 * upstream has just closed is sent once more on a fresh one (nothing reached the upstream).
 *
 * @example
 * const up = new UpstreamHttp('http://127.0.0.1:11434/v1', 'sk-…');
 * const completion = await up.postJson('/chat/completions', body, signal);
 */
export class UpstreamHttp {
  private readonly agent: http.Agent;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly transport: typeof http | typeof https;
  /** Request options per path, resolved once (a URL per call cost more than its request's headers). */
  private readonly targets = new Map<string, http.RequestOptions>();

  constructor(baseUrl: string, apiKey: string) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.transport = this.base.protocol === 'https:' ? https : http;
    const Agent = this.transport === https ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, scheduling: 'lifo', maxFreeSockets: 256 });
    this.headers = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'dirigent-llm-gateway',
    };
  }

  private target(path: string): http.RequestOptions {
    let t = this.targets.get(path);
    if (!t) {
      const url = new URL(path.replace(/^\//, ''), this.base);
      t = { ...urlToHttpOptions(url), method: 'POST', agent: this.agent };
      this.targets.set(path, t);
    }
    return t;
  }

  postJson(path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    const target = this.target(path);
    return new Promise((resolve, reject) => {
      const send = (mayResend: boolean) => {
        const req = this.transport.request(
          {
            ...target,
            signal,
            headers: { ...this.headers, 'content-length': String(payload.length) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', reject);
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const status = res.statusCode ?? 0;
              if (status < 200 || status > 299) {
                const { message, error } = statusMessage(status, text);
                return reject(new UpstreamStatusError(status, res.headers, message, error));
              }
              try {
                resolve(JSON.parse(text));
              } catch {
                reject(new Error(`upstream answered ${status} with a body that is not JSON`));
              }
            });
          },
        );
        req.on('error', (e: NodeJS.ErrnoException) => {
          if (mayResend && req.reusedSocket && e.code === 'ECONNRESET' && !signal.aborted)
            send(false);
          else reject(e);
        });
        req.end(payload);
      };
      send(true);
    });
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}
