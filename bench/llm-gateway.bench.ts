import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { INestApplication } from '@nestjs/common';
import { migrate } from '@dirigent/persistence';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import { LlmGatewayService } from '../services/llm-gateway/llm-gateway.module';
import { percentile, round, type BenchResult } from './stats';

const TOKEN = 'bench-gateway-token-0123456789';
const WARMUP = 300;
const PHASE_MS = 3_000;
const MAX_REQUESTS = 30_000;

const BODY = JSON.stringify({
  model: 'purpose:agent',
  messages: [{ role: 'user', content: 'How far is the moon?' }],
  max_tokens: 64,
});

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
        : reject(new Error('HTTP ' + res.statusCode + ' from ' + path + ' ' + t))); });
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

interface Target {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** Spread the clients over these guilds (one budget row each). */
  guilds?: string[];
}

function load(t: Target, clients: number): Promise<{ latencies: number[]; rps: number }> {
  const worker = new Worker(LOAD, {
    eval: true,
    workerData: {
      ...t,
      clients,
      warmup: WARMUP,
      durationMs: PHASE_MS,
      maxRequests: MAX_REQUESTS,
      body: BODY,
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
 * Model gateway overhead on loopback: a minimal OpenAI upstream (its own thread) called
 * directly and through the gateway (this process's main thread, with its Postgres budget
 * reservation, batched settlement and ledger, and NATS usage event per call); load from a
 * third thread. p50/p99 latency at 1 and 50 concurrent clients, added latency, and
 * requests/s of the gateway process.
 */
export async function benchLlmGateway(): Promise<BenchResult> {
  await migrate(testDatabaseUrl());
  const upstream = new Worker(UPSTREAM, { eval: true });
  const upstreamPort = await new Promise<number>((resolve, reject) => {
    upstream.once('message', resolve);
    upstream.once('error', reject);
  });
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-'));
  const config = join(dir, 'llm.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'local', kind: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1` }],
      models: [
        {
          id: 'bench',
          provider: 'local',
          upstream: 'bench-model',
          inputUsdPerMTok: 1,
          outputUsdPerMTok: 2,
        },
      ],
      purposes: { agent: { model: 'bench' } },
      budgets: { defaultGuildUsdPerDay: 1_000_000 },
    }),
  );
  let app: INestApplication | undefined;
  try {
    const started = await startServiceApp(LlmGatewayService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'warn',
      LLM_GATEWAY_PORT: '0',
      DIRIGENT_LLM_CONFIG: config,
      DIRIGENT_GATEWAY_TOKEN: TOKEN,
    });
    app = started.app;
    const direct: Target = { port: upstreamPort, path: '/v1/chat/completions', headers: {} };
    const gateway = (guilds: string[]): Target => ({
      port: started.port,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TOKEN}` },
      guilds,
    });
    const result: BenchResult = {};
    const p = (s: number[], q: number) => percentile(s, q);
    const record = (
      label: string,
      d: { latencies: number[] },
      g: { latencies: number[]; rps: number },
    ) => {
      result[`direct p50/p99 ms ${label}`] =
        `${round(p(d.latencies, 50))} / ${round(p(d.latencies, 99))}`;
      result[`gateway p50/p99 ms ${label}`] =
        `${round(p(g.latencies, 50))} / ${round(p(g.latencies, 99))}`;
      result[`added p50 ms ${label}`] = round(p(g.latencies, 50) - p(d.latencies, 50));
      result[`added p99 ms ${label}`] = round(p(g.latencies, 99) - p(d.latencies, 99));
      result[`gateway requests/s ${label}`] = Math.round(g.rps);
    };
    record('@1', await load(direct, 1), await load(gateway([snowflake()]), 1));
    const direct50 = await load(direct, 50);
    const guilds = Array.from({ length: 50 }, () => snowflake());
    record('@50 (50 guilds)', direct50, await load(gateway(guilds), 50));
    // every client on one guild: all reservations contend for one budget row
    record('@50 (one guild)', direct50, await load(gateway([snowflake()]), 50));
    return result;
  } finally {
    await app?.close();
    upstream.postMessage('stop');
    await new Promise((r) => upstream.once('exit', r));
  }
}
