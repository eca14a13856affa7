import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { classifyFailure } from './failures';
import { UpstreamHttp, UpstreamStatusError } from './upstream-http';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
  port: number;
}

/** A local HTTP upstream: each test sets how it answers; it records what it was sent. */
class Upstream {
  readonly seen: Seen[] = [];
  readonly sockets = new Set<Socket>();
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, res) =>
    res.end('{}');
  private server!: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        this.seen.push({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body,
          port: req.socket.remotePort ?? 0,
        });
        this.answer(req, res, body);
      });
    });
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const live = () => new AbortController().signal;

describe('UpstreamHttp', () => {
  const upstream = new Upstream();
  let base: string;
  let http: UpstreamHttp;

  beforeAll(async () => {
    base = await upstream.start();
  });
  beforeEach(() => {
    upstream.seen.length = 0;
    http = new UpstreamHttp(base, 'sk-test-key');
  });
  afterEach(() => http.close());
  afterAll(() => upstream.stop());

  it('POSTs the JSON body under the base path with the key, and resolves the parsed answer', async () => {
    upstream.answer = (_q, res, body) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echoed: JSON.parse(body) as unknown, ok: true }));
    };
    const answer = await http.postJson('/chat/completions', { model: 'm', n: 1 }, live());
    expect(answer).toEqual({ echoed: { model: 'm', n: 1 }, ok: true });
    const [seen] = upstream.seen;
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer sk-test-key',
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'dirigent-llm-gateway',
      'content-length': String(Buffer.byteLength(seen.body)),
    });
  });

  it('keeps its connections: calls one after another reuse them', async () => {
    upstream.answer = (_q, res, body) => res.end(body);
    const order = Array.from({ length: 20 }, (_, i) => i);
    for (const i of order) await http.postJson('chat/completions', { i }, live());
    expect(upstream.seen.map((s) => s.body)).toEqual(order.map((i) => `{"i":${i}}`));
    // undici's pool may open a second one: a connection counts as busy until its drain (a
    // microtask after its answer), and the next call can be dispatched before that
    expect(new Set(upstream.seen.map((s) => s.port)).size).toBeLessThanOrEqual(2);
  });

  it('answers calls made together on connections of their own, each with its own answer', async () => {
    upstream.answer = (_q, res, body) => setTimeout(() => res.end(body), 20);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => http.postJson('/chat/completions', { i }, live())),
    );
    expect(answers).toEqual(Array.from({ length: 8 }, (_, i) => ({ i })));
    expect(new Set(upstream.seen.map((s) => s.port)).size).toBe(8);
  });

  it("rejects a non-2xx answer as the SDKs' status error: status, headers, `<status> <message>`", async () => {
    upstream.answer = (_q, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'Retry-After': '7' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
    };
    const e = (await http.postJson('/chat/completions', {}, live()).catch((x: unknown) => x)) as
      | UpstreamStatusError
      | undefined;
    expect(e).toBeInstanceOf(UpstreamStatusError);
    expect(e).toMatchObject({
      status: 429,
      message: '429 slow down',
      error: { message: 'slow down', type: 'rate_limit' },
    });
    expect(e!.headers['retry-after']).toBe('7');
    expect(classifyFailure(e, { timedOut: false, aborted: false })).toMatchObject({
      kind: 'retryable',
      reason: 'rate_limited',
      retryAfterMs: 7_000,
    });
  });

  it('words a status error without a JSON body by its text, or by its status alone', async () => {
    upstream.answer = (_q, res) => {
      res.statusCode = 502;
      res.end('bad gateway upstairs');
    };
    await expect(http.postJson('/x', {}, live())).rejects.toThrow('502 bad gateway upstairs');
    upstream.answer = (_q, res) => {
      res.statusCode = 500;
      res.end();
    };
    await expect(http.postJson('/x', {}, live())).rejects.toThrow('500 status code (no body)');
  });

  it('rejects a 2xx answer that is not JSON', async () => {
    upstream.answer = (_q, res) => res.end('<html>');
    await expect(http.postJson('/x', {}, live())).rejects.toThrow(
      'upstream answered 200 with a body that is not JSON',
    );
  });

  it('sends nothing for a signal already aborted', async () => {
    const c = new AbortController();
    c.abort();
    await expect(http.postJson('/x', {}, c.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('ends a call in flight when its signal aborts, and the upstream sees the request closed', async () => {
    let closed!: () => void;
    const upstreamSawClose = new Promise<void>((r) => (closed = r));
    upstream.answer = (_q, res) => res.on('close', () => closed());
    const c = new AbortController();
    const call = http.postJson('/slow', { wait: true }, c.signal);
    while (upstream.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    c.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await upstreamSawClose;
    // the pool carries on with a fresh connection
    upstream.answer = (_q, res) => res.end('{"after":true}');
    await expect(http.postJson('/x', {}, live())).resolves.toEqual({ after: true });
  });

  it('opens a new connection when the upstream closed the idle one', async () => {
    upstream.answer = (_q, res) => res.end('{"n":1}');
    await http.postJson('/x', {}, live());
    for (const s of upstream.sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    await expect(http.postJson('/x', {}, live())).resolves.toEqual({ n: 1 });
    expect(new Set(upstream.seen.map((s) => s.port)).size).toBe(2);
  });

  it('fails a call to an upstream nobody listens on as a connection failure (no status)', async () => {
    const gone = new Upstream();
    const url = await gone.start();
    await gone.stop();
    const down = new UpstreamHttp(url, 'k');
    const e = await down.postJson('/x', {}, live()).catch((x: unknown) => x);
    down.close();
    expect(classifyFailure(e, { timedOut: false, aborted: false })).toMatchObject({
      kind: 'retryable',
      reason: 'connection',
    });
  });
});
