import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Subjects, type RouterDecision } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { startServiceApp } from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl, testMessaging, closeMessaging } from '@dirigent/testing';
import { FakeUpstream } from '../../llm-gateway/test/fake-upstreams';
import { startGateway, type RunningGateway } from '../../llm-gateway/test/harness';
import { RouterService } from '../router.module';
import { FakeDiscord } from './fake-discord';

/** A gateway whose every router purpose goes to one fake OpenAI upstream. */
export function gatewayConfig(up: FakeUpstream): Record<string, unknown> {
  const fake = { model: 'fake' };
  return {
    providers: [{ id: 'fake', kind: 'openai', baseUrl: up.baseUrl, apiKeyEnv: 'TEST_OPENAI_KEY' }],
    models: [
      {
        id: 'fake',
        provider: 'fake',
        upstream: 'fake-1',
        inputUsdPerMTok: 1,
        outputUsdPerMTok: 2,
        contextWindow: 128000,
      },
    ],
    purposes: {
      'synth-low': fake,
      'synth-mid': fake,
      'synth-high': fake,
      'subagent-research': fake,
      'router-classify': fake,
      agent: fake,
      orchestrate: fake,
    },
    budgets: { defaultGuildUsdPerDay: 100 },
    reliability: { timeoutMs: 10_000, retries: 0, backoffBaseMs: 10, backoffMaxMs: 40 },
  };
}

export interface RouterStack {
  upstream: FakeUpstream;
  gateway: RunningGateway;
  router: INestApplication;
  discord: FakeDiscord;
  messaging: Messaging;
  /** Decisions and follow-up events seen on `dirigent.router.evt.>`. */
  events: { subject: string; data: any }[];
  decisions(channelId: string): RouterDecision[];
  request(subject: string, data: unknown): Promise<any>;
  close(): Promise<void>;
}

/** The router in process with `routerYaml` as its configuration (a temp dir as workspace). */
export async function startRouterApp(
  routerYaml: string,
  env: Record<string, string> = {},
): Promise<INestApplication> {
  const dir = mkdtempSync(join(tmpdir(), 'router-'));
  writeFileSync(join(dir, 'router.yaml'), routerYaml);
  const { app } = await startServiceApp(RouterService, {
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: 'silent',
    ROUTER_PORT: '0',
    DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
    DIRIGENT_WORKSPACE: dir,
    // Tests read the probes' answers on the decisions: no deadline on a busy test machine
    // (inputs-deadline.int.spec.ts sets its own).
    DIRIGENT_ROUTER_INPUTS_DEADLINE_MS: '5000',
    ...env,
  });
  return app;
}

export async function startRouterStack(
  routerYaml: string,
  env: Record<string, string> = {},
): Promise<RouterStack> {
  const upstream = await FakeUpstream.start('openai');
  const gateway = await startGateway(gatewayConfig(upstream));
  const router = await startRouterApp(routerYaml, {
    DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '500',
    ...env,
  });
  const messaging = await testMessaging('router-test');
  const discord = new FakeDiscord(messaging);
  await discord.start();
  const events: { subject: string; data: any }[] = [];
  messaging.client.nc.subscribe(Subjects.router.evtAll, {
    callback: (_e, m) => {
      events.push({ subject: m.subject, data: m.json<any>().data });
    },
  });
  await messaging.client.nc.flush();
  return {
    upstream,
    gateway,
    router,
    discord,
    messaging,
    events,
    decisions: (channelId) =>
      events.filter((e) => e.subject.endsWith(`${channelId}.decision`)).map((e) => e.data),
    request: (subject, data) => messaging.request(subject, data),
    close: async () => {
      await discord.stop();
      await router.close();
      await gateway.close();
      await upstream.close();
      await closeMessaging(messaging);
    },
  };
}
