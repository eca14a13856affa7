import { Agent, request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import { LlmGatewayService } from '../services/llm-gateway/definition';
import { FakeUpstream } from '../services/llm-gateway/test/fake-upstreams';
import { percentile, round, type BenchResult } from './stats';

const TOKEN = 'bench-gateway-token-0123456789';
const WARMUP = 200;
const PHASE_MS = 3_000;
const MAX_REQUESTS = 20_000;

const BODY = JSON.stringify({
  model: 'purpose:agent',
  messages: [{ role: 'user', content: 'How far is the moon?' }],
  max_tokens: 64,
});

interface Target {
  port: number;
  path: string;
  headers: Record<string, string>;
}

/** One POST over a keep-alive agent; resolves with the latency in ms. */
function post(agent: Agent, t: Target): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: t.port,
        path: t.path,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(BODY),
          ...t.headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
            : reject(new Error(`HTTP ${res.statusCode} from :${t.port}${t.path}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

/** A closed loop of `clients` callers for PHASE_MS (bounded by MAX_REQUESTS). */
async function phase(t: Target, clients: number): Promise<{ latencies: number[]; rps: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  try {
    for (let i = 0; i < WARMUP; i += clients)
      await Promise.all(Array.from({ length: clients }, () => post(agent, t)));
    const latencies: number[] = [];
    const started = performance.now();
    const deadline = started + PHASE_MS;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline && latencies.length < MAX_REQUESTS)
          latencies.push(await post(agent, t));
      }),
    );
    return { latencies, rps: (latencies.length * 1000) / (performance.now() - started) };
  } finally {
    agent.destroy();
  }
}

/**
 * Model gateway overhead on loopback: the same fake OpenAI upstream called directly and
 * through the gateway (in-process, with its Postgres budget reservation, settlement,
 * ledger row and NATS usage event per call), p50/p99 latency at 1 and 50 concurrent
 * clients and the gateway's requests/s. Client, gateway and upstream share this process.
 */
export async function benchLlmGateway(): Promise<BenchResult> {
  const upstream = await FakeUpstream.start('openai');
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-'));
  const config = join(dir, 'llm.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'local', kind: 'openai', baseUrl: upstream.baseUrl }],
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
    const direct: Target = { port: upstream.port, path: '/v1/chat/completions', headers: {} };
    const viaGateway: Target = {
      port: started.port,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-dirigent-guild': snowflake() },
    };
    const result: BenchResult = {};
    for (const clients of [1, 50]) {
      const d = await phase(direct, clients);
      const g = await phase(viaGateway, clients);
      const p = (s: number[], q: number) => percentile(s, q);
      result[`direct p50 ms @${clients}`] = round(p(d.latencies, 50));
      result[`direct p99 ms @${clients}`] = round(p(d.latencies, 99));
      result[`gateway p50 ms @${clients}`] = round(p(g.latencies, 50));
      result[`gateway p99 ms @${clients}`] = round(p(g.latencies, 99));
      result[`added p50 ms @${clients}`] = round(p(g.latencies, 50) - p(d.latencies, 50));
      result[`added p99 ms @${clients}`] = round(p(g.latencies, 99) - p(d.latencies, 99));
      result[`gateway requests/s @${clients}`] = Math.round(g.rps);
      result[`direct requests/s @${clients}`] = Math.round(d.rps);
    }
    return result;
  } finally {
    await app?.close();
    await upstream.close();
  }
}
