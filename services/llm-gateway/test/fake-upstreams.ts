import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The answer's tool calls, each with the id the fake gives it (`call_fakeN` / `toolu_fakeN`). */
function callsOf(b: { toolCall?: FakeToolCall; toolCalls?: FakeToolCall[] }, prefix: string) {
  return (b.toolCalls ?? (b.toolCall ? [b.toolCall] : [])).map((c, i) => ({
    ...c,
    id: `${prefix}${i + 1}`,
    json: JSON.stringify(c.arguments),
  }));
}

/** A JSON text cut in three, as a model streams a tool call's arguments. */
function thirds(json: string): string[] {
  const a = Math.floor(json.length / 3);
  return [json.slice(0, a), json.slice(a, 2 * a), json.slice(2 * a)];
}

/** What a fake upstream does with one request. */
export type Behavior =
  | {
      kind: 'ok';
      text?: string;
      toolCall?: FakeToolCall;
      /** Several calls in one answer (parallel tool calls); `toolCall` is the one-call form. */
      toolCalls?: FakeToolCall[];
      usage?: { input: number; output: number };
      /** A streamed answer holds its finish chunk (and the end) until this resolves. */
      tailAfter?: Promise<void>;
    }
  | { kind: 'error'; status: number; headers?: Record<string, string>; message?: string }
  | { kind: 'hang' }
  /** Streams one chunk, then drops the connection. */
  | { kind: 'break' }
  | { kind: 'hold'; until: Promise<void>; then?: Behavior };

export interface Seen {
  path: string;
  body: any;
  headers: IncomingMessage['headers'];
  at: number;
  /** Resolves true when the client went away before the answer was complete. */
  aborted: Promise<boolean>;
}

/**
 * A local HTTP server playing the OpenAI (`/v1/chat/completions`, `/v1/embeddings`) or
 * Anthropic (`/v1/messages`) API, driven by `behave`, recording every request. The
 * real SDKs talk to it.
 */
export class FakeUpstream {
  readonly seen: Seen[] = [];
  behave: (seen: Seen, index: number) => Behavior = () => ({ kind: 'ok' });
  private server!: Server;
  private readonly open = new Set<ServerResponse>();

  constructor(readonly flavour: 'openai' | 'anthropic') {}

  static async start(flavour: 'openai' | 'anthropic'): Promise<FakeUpstream> {
    const f = new FakeUpstream(flavour);
    f.server = createServer((req, res) => void f.handle(req, res));
    f.server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => f.server.listen(0, '127.0.0.1', r));
    return f;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The base URL the provider's SDK expects. */
  get baseUrl(): string {
    return this.flavour === 'openai'
      ? `http://127.0.0.1:${this.port}/v1`
      : `http://127.0.0.1:${this.port}`;
  }

  hits(path?: string): number {
    return this.seen.filter((s) => !path || s.path.endsWith(path)).length;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      body = {};
    }
    this.open.add(res);
    const aborted = new Promise<boolean>((resolve) =>
      res.on('close', () => {
        this.open.delete(res);
        resolve(!res.writableFinished);
      }),
    );
    const seen: Seen = { path: req.url ?? '', body, headers: req.headers, at: Date.now(), aborted };
    const index = this.seen.push(seen) - 1;
    let behavior = this.behave(seen, index);
    while (behavior.kind === 'hold') {
      await behavior.until;
      behavior = behavior.then ?? { kind: 'ok' };
    }
    if (res.destroyed) return;
    switch (behavior.kind) {
      case 'hang':
        return;
      case 'break': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = {
          id: 'chatcmpl-fake',
          object: 'chat.completion.chunk',
          created: 1,
          model: body.model,
        };
        res.write(
          `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { role: 'assistant', content: 'partial ' }, finish_reason: null }] })}\n\n`,
        );
        setTimeout(() => res.destroy(), 20);
        return;
      }
      case 'error':
        res.writeHead(behavior.status, { 'content-type': 'application/json', ...behavior.headers });
        res.end(
          JSON.stringify(
            this.flavour === 'openai'
              ? {
                  error: {
                    message: behavior.message ?? `upstream ${behavior.status}`,
                    type: 'server_error',
                  },
                }
              : {
                  type: 'error',
                  error: {
                    type: 'api_error',
                    message: behavior.message ?? `upstream ${behavior.status}`,
                  },
                },
          ),
        );
        return;
      case 'ok':
        if (seen.path.endsWith('/embeddings')) return this.embeddings(res, body);
        if (this.flavour === 'openai') return this.openai(res, body, behavior);
        return this.anthropic(res, body, behavior);
    }
  }

  private embeddings(res: ServerResponse, body: any): void {
    const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
    const dims = body.dimensions ?? 8;
    const data = inputs.map((_, index) => {
      const v = Array.from({ length: dims }, (_x, i) => (i + index + 1) / 100);
      const embedding =
        body.encoding_format === 'base64'
          ? Buffer.from(new Float32Array(v).buffer).toString('base64')
          : v;
      return { object: 'embedding', index, embedding };
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data,
        usage: { prompt_tokens: 5, total_tokens: 5 },
      }),
    );
  }

  private async openai(
    res: ServerResponse,
    body: any,
    b: Extract<Behavior, { kind: 'ok' }>,
  ): Promise<void> {
    const calls = callsOf(b, 'call_fake');
    const text = b.text ?? (calls.length ? '' : `upstream says hi to ${body.model}`);
    const finish_reason = calls.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: b.usage?.input ?? 10, completion_tokens: b.usage?.output ?? 5 };
    const full = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: text || (calls.length ? null : ''),
                ...(calls.length
                  ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: 'function',
                        function: { name: c.name, arguments: c.json },
                      })),
                    }
                  : {}),
              },
              finish_reason,
              logprobs: null,
            },
          ],
          usage: full,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const base = {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 1,
      model: body.model,
    };
    const deltas: Record<string, unknown>[] = text
      ? text.split(/(?<= )/).map((w) => ({ content: w }))
      : [];
    calls.forEach((c, index) => {
      deltas.push({
        tool_calls: [
          { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      });
      for (const part of thirds(c.json))
        deltas.push({ tool_calls: [{ index, function: { arguments: part } }] });
    });
    deltas.forEach((d, i) =>
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', ...d } : d, finish_reason: null }] })}\n\n`,
      ),
    );
    if (b.tailAfter) await b.tailAfter;
    if (res.destroyed) return;
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason }] })}\n\n`,
    );
    if (body.stream_options?.include_usage)
      res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: full })}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  private anthropic(res: ServerResponse, body: any, b: Extract<Behavior, { kind: 'ok' }>): void {
    const text = b.text ?? `claude says hi to ${body.model}`;
    const usage = { input_tokens: b.usage?.input ?? 12, output_tokens: b.usage?.output ?? 7 };
    const calls = callsOf(b, 'toolu_fake');
    const content: any[] = [{ type: 'text', text }];
    for (const c of calls)
      content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
    const stop_reason = calls.length ? 'tool_use' : 'end_turn';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content,
          stop_reason,
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    });
    send('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    for (const w of text.split(/(?<= )/))
      send('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: w },
      });
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    calls.forEach((c, i) => {
      const index = i + 1;
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
      });
      for (const part of thirds(c.json))
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        });
      send('content_block_stop', { type: 'content_block_stop', index });
    });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }
}
