import { Worker } from 'node:worker_threads';

const WARMUP = 500;
const MAX_REQUESTS = 60_000;
export const PHASE_MS = Number(process.env.LLM_BENCH_PHASE_MS ?? 3_000);

/** A minimal OpenAI chat completions upstream, in its own thread. */
const UPSTREAM = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'About 384,400 km.' }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
    }));
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

/** Closed-loop HTTP clients, in their own thread; replies with the latencies in ms. */
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, path, headers, guilds, clients, warmup, durationMs, maxRequests, body } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
function post(client) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers,
        ...(guilds ? { 'x-dirigent-guild': guilds[client % guilds.length] } : {}) } },
      (res) => { let t = ''; res.on('data', (d) => { t += d; }); res.on('end', () => res.statusCode === 200
        ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
        : reject(new Error('HTTP ' + res.statusCode + ' from ' + path + ' ' + t.slice(0, 300)))); });
    req.on('error', reject);
    req.end(body);
  });
}
(async () => {
  for (let i = 0; i < warmup; i += clients) await Promise.all(Array.from({ length: clients }, (_, c) => post(c)));
  const latencies = [];
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    while (performance.now() < deadline && latencies.length < maxRequests) latencies.push(await post(c));
  }));
  parentPort.postMessage({ latencies, seconds: (performance.now() - start) / 1000 });
  agent.destroy();
})().catch((e) => parentPort.postMessage({ error: String(e && e.message || e) }));
`;

export interface Target {
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Spread the clients over these guilds (one budget each). */
  guilds?: string[];
}

export interface Phase {
  latencies: number[];
  rps: number;
}

/** The chat completion every client sends. */
export const chatBody = (model: string) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'How far is the moon?' }],
    max_tokens: 64,
  });

/** `clients` closed-loop clients against `t`: 500 warm-up requests, then one phase. */
export function load(t: Target, clients: number): Promise<Phase> {
  const worker = new Worker(LOAD, {
    eval: true,
    workerData: {
      ...t,
      clients,
      warmup: WARMUP,
      durationMs: PHASE_MS,
      maxRequests: MAX_REQUESTS,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { latencies: number[]; seconds: number; error?: string }) => {
      void worker.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve({ latencies: m.latencies, rps: m.latencies.length / m.seconds });
    });
    worker.once('error', reject);
  });
}

/** The fake OpenAI upstream (a worker thread): its port, and `stop`. */
export async function startUpstream(): Promise<{ port: number; stop(): Promise<void> }> {
  const upstream = new Worker(UPSTREAM, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    upstream.once('message', resolve);
    upstream.once('error', reject);
  });
  return {
    port,
    stop: async () => {
      upstream.postMessage('stop');
      await new Promise((r) => upstream.once('exit', r));
    },
  };
}
