import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Subjects } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { migrate } from '@dirigent/persistence';
import {
  CANONICAL_DISPOSITIONS,
  personasFor,
  route,
  type Disposition,
} from '@dirigent/router-domain';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import { LlmGatewayService } from '../services/llm-gateway/llm-gateway.module';
import { ComposeReply } from '../services/router/application/compose-reply';
import { DecideDryRun } from '../services/router/application/decide-dry-run';
import { RouterService } from '../services/router/router.module';
import { msSince, percentile, round, type BenchResult } from './stats';

const DECISIONS = 2000;
/** Research personas answer after these delays (by a word of their prompt); the synthesizer at once. */
const DELAYS: [RegExp, number][] = [
  [/dig through/, 150],
  [/find substantive/, 250],
  [/argue against/, 350],
];

/** An OpenAI chat upstream that answers each research persona after its delay. */
function delayedUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const system = String(body.messages?.[0]?.content ?? '');
      const delay = DELAYS.find(([re]) => re.test(system))?.[1] ?? 0;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-bench',
            object: 'chat.completion',
            created: 1,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: 'findings' },
                finish_reason: 'stop',
                logprobs: null,
              },
            ],
            usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
          }),
        );
      }, delay);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/**
 * The router: decision latency without models (the pure router, and `dirigent.router.decide`
 * over NATS with the store and the gateway's budget lookup), and the research fan-out's
 * wall time against its slowest persona with a delayed upstream behind the real gateway.
 */
export async function benchRouter(): Promise<BenchResult> {
  await migrate(testDatabaseUrl());
  const upstream = await delayedUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'router-bench-'));
  writeFileSync(
    join(dir, 'llm.json'),
    JSON.stringify({
      providers: [
        {
          id: 'local',
          kind: 'openai',
          baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
        },
      ],
      models: [
        {
          id: 'bench',
          provider: 'local',
          upstream: 'bench-model',
          inputUsdPerMTok: 1,
          outputUsdPerMTok: 2,
        },
      ],
      purposes: Object.fromEntries(
        ['subagent-research', 'synth-low', 'synth-mid', 'synth-high'].map((p) => [
          p,
          { model: 'bench' },
        ]),
      ),
      budgets: { defaultGuildUsdPerDay: 1_000_000 },
    }),
  );
  writeFileSync(
    join(dir, 'router.yaml'),
    'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\n',
  );
  const env = { NATS_URL: testNatsUrl(), DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'warn' };
  const apps: INestApplication[] = [];
  try {
    apps.push(
      (
        await startServiceApp(LlmGatewayService, {
          ...env,
          LLM_GATEWAY_PORT: '0',
          DIRIGENT_LLM_CONFIG: join(dir, 'llm.json'),
        })
      ).app,
    );
    const router = (
      await startServiceApp(RouterService, {
        ...env,
        ROUTER_PORT: '0',
        DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
        DIRIGENT_WORKSPACE: dir,
      })
    ).app;
    apps.push(router);
    const result: BenchResult = {};

    const agent = { id: 'dit', name: 'Dit' };
    const pure: number[] = [];
    for (let i = 0; i < DECISIONS * 5; i++) {
      const t = process.hrtime.bigint();
      route(CANONICAL_DISPOSITIONS, {
        trigger: 'reactive',
        agent,
        content: `is this the take number ${i}? dit`,
        mentioned: i % 2 === 0,
        budgetFraction: 0.8,
        seed: `s${i}`,
      });
      pure.push(msSince(t));
    }
    result['route() p50/p99 ms'] =
      `${round(percentile(pure, 50), 4)} / ${round(percentile(pure, 99), 4)}`;

    const dryRun = router.get(DecideDryRun);
    const guild = snowflake();
    const inService: number[] = [];
    for (let i = 0; i < DECISIONS + 200; i++) {
      const t = process.hrtime.bigint();
      await dryRun.run({
        guildId: guild,
        channelId: guild,
        content: `and ${i}, dit?`,
        seed: `d${i}`,
      });
      if (i >= 200) inService.push(msSince(t));
    }
    result['decide in the service (store + budget cached) p50/p99 ms'] =
      `${round(percentile(inService, 50))} / ${round(percentile(inService, 99))}`;

    const messaging = router.get(Messaging);
    const guildId = snowflake();
    const channelId = snowflake();
    const ask = (i: number) =>
      messaging.request(Subjects.router.decide, {
        guildId,
        channelId,
        content: `what about ${i}, dit?`,
        seed: `b${i}`,
      });
    for (let i = 0; i < 200; i++) await ask(i);
    const overNats: number[] = [];
    for (let i = 0; i < DECISIONS; i++) {
      const t = process.hrtime.bigint();
      const r = await ask(i);
      overNats.push(msSince(t));
      if (!r.ok) throw new Error(`decide failed: ${r.error.message}`);
    }
    result['decide over NATS p50/p99 ms'] =
      `${round(percentile(overNats, 50))} / ${round(percentile(overNats, 99))}`;

    const compose = router.get(ComposeReply);
    const fanout: Disposition = {
      ...CANONICAL_DISPOSITIONS.find((d) => d.id === 'contrarian-take')!,
      searchPosture: 'broad-scan',
    };
    const personas = personasFor(fanout);
    const input = {
      guildId,
      channelId,
      agent,
      disposition: fanout,
      message: { content: 'hot take', authorId: snowflake() },
    };
    await Promise.all(personas.map((p) => compose.research(p, input)));
    const ratios: number[] = [];
    const walls: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = process.hrtime.bigint();
      const runs = await Promise.all(personas.map((p) => compose.research(p, input)));
      const wall = msSince(t);
      const max = Math.max(...runs.map((r) => r.durationMs));
      if (runs.some((r) => r.status !== 'success')) throw new Error('a research run failed');
      walls.push(wall);
      ratios.push(wall / max);
    }
    result['fan-out personas'] = personas.join(', ');
    result['fan-out wall p50 ms (slowest persona’s delay 350)'] = round(percentile(walls, 50));
    result['fan-out wall / slowest persona p50/max'] =
      `${round(percentile(ratios, 50))} / ${round(Math.max(...ratios))}`;
    return result;
  } finally {
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await new Promise((r) => upstream.close(r));
  }
}
