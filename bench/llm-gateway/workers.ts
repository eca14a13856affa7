import { Worker } from 'node:worker_threads';

/** Requests each `load` sends before its phase (counted in a process's CPU per request). */
export const WARMUP = 500;
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

/**
 * One closed-loop client taking turns over several targets in short slices, in its own
 * thread; replies with each target's latencies (ms) and the seconds it had.
 */
const INTERLEAVED = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { targets, warmup, durationMs, sliceMs } = workerData;
const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
function post(i) {
  const t = targets[i];
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: t.port, path: t.path, method: 'POST', agent: agents[i],
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(t.body), ...t.headers,
        ...(t.guilds ? { 'x-dirigent-guild': t.guilds[0] } : {}) } },
      (res) => { let s = ''; res.on('data', (d) => { s += d; }); res.on('end', () => res.statusCode === 200
        ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
        : reject(new Error('HTTP ' + res.statusCode + ' from ' + t.port + t.path + ' ' + s.slice(0, 300)))); });
    req.on('error', reject);
    req.end(t.body);
  });
}
(async () => {
  for (let i = 0; i < targets.length; i++) for (let k = 0; k < warmup; k++) await post(i);
  const latencies = targets.map(() => []);
  const seconds = targets.map(() => 0);
  const cycles = Math.max(1, Math.round(durationMs / sliceMs));
  for (let c = 0; c < cycles; c++)
    for (let j = 0; j < targets.length; j++) {
      const i = (j + c) % targets.length;
      const start = performance.now();
      const end = start + sliceMs;
      while (performance.now() < end) latencies[i].push(await post(i));
      seconds[i] += (performance.now() - start) / 1000;
    }
  parentPort.postMessage({ latencies, seconds });
  agents.forEach((a) => a.destroy());
})().catch((e) => parentPort.postMessage({ error: String(e && e.message || e) }));
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

/**
 * One client against every target in turn, `sliceMs` at a time (in rotating order), for
 * `PHASE_MS` each: what a burst of other work on the machine costs falls on all targets
 * alike, not on whichever ran during it.
 */
export function loadInterleaved(targets: Target[], sliceMs = 250): Promise<Phase[]> {
  const worker = new Worker(INTERLEAVED, {
    eval: true,
    workerData: { targets, warmup: WARMUP, durationMs: PHASE_MS, sliceMs },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { latencies: number[][]; seconds: number[]; error?: string }) => {
      void worker.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve(m.latencies.map((l, i) => ({ latencies: l, rps: l.length / m.seconds[i] })));
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
