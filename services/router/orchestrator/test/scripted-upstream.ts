import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedAnswer {
  content?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> | string }[];
  delayMs?: number;
  /** The answer waits for this first. */
  until?: Promise<void>;
  status?: number;
}

/**
 * An OpenAI-compatible upstream (`/v1/chat/completions`, not streamed) whose answers come
 * from `script`, keyed by the upstream model name the gateway sends; every body is kept.
 */
export class ScriptedUpstream {
  readonly seen: { model: string; body: any }[] = [];
  script: (body: any) => ScriptedAnswer = () => ({ content: 'ok' });
  private server!: Server;

  static async start(): Promise<ScriptedUpstream> {
    const u = new ScriptedUpstream();
    u.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        u.seen.push({ model: body.model, body });
        const a = u.script(body);
        const answer = () => {
          if (a.status && a.status !== 200) {
            res.writeHead(a.status, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({
                error: { message: 'scripted failure', type: 'invalid_request_error' },
              }),
            );
            return;
          }
          const tool_calls = a.toolCalls?.map((t, i) => ({
            id: `call_${i}`,
            type: 'function',
            function: {
              name: t.name,
              arguments:
                typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments),
            },
          }));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: 'chatcmpl-scripted',
              object: 'chat.completion',
              created: 1,
              model: body.model,
              choices: [
                {
                  index: 0,
                  message: {
                    role: 'assistant',
                    content: a.content ?? null,
                    ...(tool_calls ? { tool_calls } : {}),
                  },
                  finish_reason: tool_calls ? 'tool_calls' : 'stop',
                  logprobs: null,
                },
              ],
              usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
            }),
          );
        };
        void Promise.resolve(a.until).then(() => setTimeout(answer, a.delayMs ?? 0));
      });
    });
    await new Promise<void>((r) => u.server.listen(0, '127.0.0.1', r));
    return u;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** The gateway configuration: one upstream model per purpose the orchestrator uses. */
export function gatewayConfig(up: ScriptedUpstream): Record<string, unknown> {
  const model = (id: string) => ({
    id,
    provider: 'scripted',
    upstream: `${id}-up`,
    inputUsdPerMTok: 1,
    outputUsdPerMTok: 2,
    contextWindow: 128000,
  });
  return {
    providers: [{ id: 'scripted', kind: 'openai', baseUrl: up.baseUrl }],
    models: [model('orch'), model('research'), model('general')],
    purposes: {
      orchestrate: { model: 'orch', fallbacks: [] },
      'subagent-research': { model: 'research', fallbacks: [] },
      agent: { model: 'general', fallbacks: [] },
    },
    budgets: { defaultGuildUsdPerDay: 100 },
    reliability: { timeoutMs: 10000, retries: 0 },
  };
}
