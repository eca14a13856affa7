import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import OpenAI from 'openai';
import { costMicros, estimatePromptTokens } from '@dirigent/llm';
import { startServiceApp } from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import { LlmGatewayService } from '../llm-gateway.module';
import { FakeUpstream } from './fake-upstreams';

export const TOKEN = 'test-gateway-token-0123456789';

/** gpt-primary's prices: $1 in, $2 out per million tokens. */
const PRIMARY_PRICES = { inputUsdPerMTok: 1, outputUsdPerMTok: 2 };

/** What the gateway reserves for one call to gpt-primary, in micro-dollars. */
export function primaryReservation(
  messages: OpenAI.ChatCompletionMessageParam[],
  maxTokens: number,
): number {
  return costMicros(
    { id: 'gpt-primary', provider: 'x', upstream: 'x', type: 'chat', ...PRIMARY_PRICES },
    estimatePromptTokens({ messages: messages as any }),
    maxTokens,
  );
}

/** A gateway configuration over fake OpenAI/Anthropic upstreams and the offline provider. */
export function testConfig(
  up: { primary: FakeUpstream; backup: FakeUpstream; anthropic: FakeUpstream },
  reliability: Record<string, number> = {},
): Record<string, unknown> {
  return {
    providers: [
      {
        id: 'oa-primary',
        kind: 'openai',
        baseUrl: up.primary.baseUrl,
        apiKeyEnv: 'TEST_OPENAI_KEY',
      },
      { id: 'oa-backup', kind: 'openai', baseUrl: up.backup.baseUrl },
      {
        id: 'anth',
        kind: 'anthropic',
        baseUrl: up.anthropic.baseUrl,
        apiKeyEnv: 'TEST_ANTHROPIC_KEY',
      },
      { id: 'offline', kind: 'offline' },
    ],
    models: [
      {
        id: 'gpt-primary',
        provider: 'oa-primary',
        upstream: 'gpt-4o-mini',
        ...PRIMARY_PRICES,
        contextWindow: 128000,
      },
      {
        id: 'gpt-backup',
        provider: 'oa-backup',
        upstream: 'llama3',
        inputUsdPerMTok: 0.5,
        outputUsdPerMTok: 1,
        contextWindow: 128000,
      },
      {
        id: 'gpt-small',
        provider: 'oa-primary',
        upstream: 'tiny',
        inputUsdPerMTok: 0.1,
        outputUsdPerMTok: 0.1,
        contextWindow: 50,
      },
      {
        id: 'claude',
        provider: 'anth',
        upstream: 'claude-fake-1',
        inputUsdPerMTok: 3,
        outputUsdPerMTok: 15,
        contextWindow: 200000,
      },
      {
        id: 'embedder',
        provider: 'oa-primary',
        upstream: 'text-embedding-3-small',
        inputUsdPerMTok: 0.02,
        outputUsdPerMTok: 0,
        type: 'embedding',
      },
      {
        id: 'echo',
        provider: 'offline',
        upstream: 'echo',
        inputUsdPerMTok: 0,
        outputUsdPerMTok: 0,
      },
      {
        id: 'no-reply',
        provider: 'offline',
        upstream: 'no-reply',
        inputUsdPerMTok: 0,
        outputUsdPerMTok: 0,
      },
    ],
    purposes: {
      agent: { model: 'gpt-primary', fallbacks: ['gpt-backup'] },
      'synth-high': { model: 'claude', fallbacks: ['gpt-backup'] },
      'router-classify': { model: 'gpt-small', fallbacks: [] },
      embed: { model: 'embedder' },
      steward: { model: 'no-reply' },
    },
    budgets: { defaultGuildUsdPerDay: 100 },
    reliability: {
      timeoutMs: 1500,
      retries: 1,
      backoffBaseMs: 10,
      backoffMaxMs: 40,
      maxRetryAfterMs: 3000,
      cooldownAfterFailures: 10,
      cooldownMs: 60000,
      ...reliability,
    },
  };
}

export interface RunningGateway {
  app: INestApplication;
  port: number;
  baseURL: string;
  client: OpenAI;
  close(): Promise<void>;
}

const META = 'mikro-orm-metadata';
let ownMetadata: Record<string, unknown> | undefined;

/**
 * Jest copies the outer process's globals into every test file's sandbox, and the
 * global setup's migration run leaves MikroORM's metadata store there: so every test
 * file shares one store and a second file's discovery trips over the first file's
 * entity metadata (objects from another realm). Until the global setup clears it,
 * keep only this file's entries while a gateway runs, and take them out after.
 */
function isolateOrmMetadata(): () => void {
  const store = ((globalThis as Record<string, unknown>)[META] ?? {}) as Record<string, any>;
  if (!ownMetadata) {
    ownMetadata = {};
    for (const [k, v] of Object.entries(store))
      if (v?.propertyOrder instanceof Map) ownMetadata[k] = v;
  }
  for (const [k, v] of Object.entries(store))
    if (!(v?.propertyOrder instanceof Map)) delete store[k];
  Object.assign(store, ownMetadata);
  return () => {
    for (const k of Object.keys(ownMetadata ?? {})) delete store[k];
  };
}

/** Starts the gateway in-process (port 0) against the real NATS and Postgres. */
export async function startGateway(
  config: Record<string, unknown> | undefined,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningGateway> {
  let path: string | undefined;
  if (config) {
    path = join(mkdtempSync(join(tmpdir(), 'llm-gw-')), 'llm.json');
    writeFileSync(path, JSON.stringify(config));
  }
  const restoreMetadata = isolateOrmMetadata();
  const { app, port } = await startServiceApp(LlmGatewayService, {
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: 'silent',
    LLM_GATEWAY_PORT: '0',
    ...(path ? { DIRIGENT_LLM_CONFIG: path, DIRIGENT_GATEWAY_TOKEN: TOKEN } : {}),
    TEST_OPENAI_KEY: 'sk-test-openai',
    TEST_ANTHROPIC_KEY: 'sk-ant-test',
    ...env,
  });
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    app,
    port,
    baseURL,
    client: new OpenAI({ apiKey: TOKEN, baseURL, maxRetries: 0 }),
    close: async () => {
      // Keep-alive sockets of the test's clients would hold the close for their idle timeout.
      const server = app.getHttpServer() as import('node:http').Server;
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 200).unref();
      await app.close();
      restoreMetadata();
    },
  };
}

/** An OpenAI client for a guild (and optionally a purpose header). */
export function clientFor(
  gw: RunningGateway,
  guild: string,
  extra: Record<string, string> = {},
): OpenAI {
  return new OpenAI({
    apiKey: TOKEN,
    baseURL: gw.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-dirigent-guild': guild, ...extra },
  });
}

/** Three fake upstreams and the gateway replicas routed to them (`testConfig`). */
export interface GatewaySuite {
  /** OpenAI-speaking, gpt-primary's. */
  primary: FakeUpstream;
  /** OpenAI-speaking, gpt-backup's. */
  backup: FakeUpstream;
  /** Anthropic-speaking, claude's. */
  anthropic: FakeUpstream;
  /** The first gateway replica. */
  gw: RunningGateway;
  /** Every replica, `gw` first. */
  gateways: RunningGateway[];
}

/**
 * Starts the upstreams and `replicas` gateways (one by default) before the suite's tests and
 * closes them after: call it in a `describe`. Its fields are set once `beforeAll` has run.
 *
 * @example
 * const t = gatewaySuite();
 * it('answers', async () => { await clientFor(t.gw, guild).models.list(); });
 */
export function gatewaySuite(
  opts: { reliability?: Record<string, number>; replicas?: number } = {},
): GatewaySuite {
  const t = { gateways: [] as RunningGateway[] } as GatewaySuite;
  beforeAll(async () => {
    [t.primary, t.backup, t.anthropic] = await Promise.all([
      FakeUpstream.start('openai'),
      FakeUpstream.start('openai'),
      FakeUpstream.start('anthropic'),
    ]);
    const config = testConfig(t, opts.reliability);
    for (let i = 0; i < (opts.replicas ?? 1); i++) t.gateways.push(await startGateway(config));
    t.gw = t.gateways[0];
  });
  afterAll(async () => {
    for (const gw of t.gateways) await gw.close();
    await Promise.all([t.primary?.close(), t.backup?.close(), t.anthropic?.close()]);
  });
  return t;
}
