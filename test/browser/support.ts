import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { chromium, type Browser } from 'playwright-core';
import { FakeDiscord } from '@dirigent/discord-fake';
import { startServiceApp, type Clock } from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl, uid } from '@dirigent/testing';
import { withControlPage } from '../../libs/control-web/src';
import { startPlayground, type Playground } from '../../libs/playground/src';
import { LlmGatewayService } from '../../services/llm-gateway/llm-gateway.module';
import { MemoryService } from '../../services/memory/memory.module';
import { RouterService } from '../../services/router/router.module';
import {
  DiscordIngestRunner,
  DiscordIngestService,
} from '../../services/discord-ingest/discord-ingest.module';
import { TurnCoordinatorService } from '../../services/turn-coordinator/turn-coordinator.module';

/** Debian's Chromium, headless, with nothing reaching out to the network by itself. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');

export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

export const baseEnv = (): Record<string, string> => ({
  NATS_URL: testNatsUrl(),
  DATABASE_URL: testDatabaseUrl(),
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
});

/** The Discord ingest connected to a local Discord, in-process. */
export async function startIngest(discord: FakeDiscord, env: Record<string, string> = {}) {
  const { app } = await startServiceApp(DiscordIngestService, {
    ...baseEnv(),
    DISCORD_INGEST_PORT: '0',
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    ...env,
  });
  await app.get(DiscordIngestRunner).ready;
  return app;
}

/** The turn coordinator with the control page, in-process, on a free port. */
export async function startCoordinator(env: Record<string, string>) {
  return startServiceApp(withControlPage(TurnCoordinatorService), {
    ...baseEnv(),
    TURN_COORDINATOR_PORT: '0',
    DIRIGENT_WORKSPACE: '',
    ...env,
  });
}

/** Closes apps in reverse order. */
export async function stopAll(apps: (INestApplication | undefined)[]) {
  for (const app of [...apps].reverse()) await app?.close().catch(() => undefined);
}

export const agentId = (prefix: string) =>
  uid(prefix)
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(0, 40);

/**
 * The playground with the gateway, the coordinator, the ingest and the router in-process,
 * its agents started. With `memoryEnv`, the memory service too (started before the router,
 * as the demo agents and Dit recall through it); without it, the router's queries of memory
 * give up quickly. `routerEnv` and `clock` go to the router.
 */
export async function startPlaygroundStack(
  opts: {
    routerEnv?: Record<string, string>;
    memoryEnv?: Record<string, string>;
    clock?: Clock;
  } = {},
): Promise<{ playground: Playground; apps: INestApplication[]; router: INestApplication }> {
  const playground = await startPlayground({
    natsUrl: testNatsUrl(),
    databaseUrl: testDatabaseUrl(),
    port: 0,
    unique: true,
    replyDelayMs: 0,
    baseEnv: {},
    log: () => undefined,
  });
  const env = { ...playground.env };
  const apps: INestApplication[] = [];
  const gateway = await startServiceApp(LlmGatewayService, {
    ...baseEnv(),
    ...env,
    LLM_GATEWAY_PORT: '0',
  });
  apps.push(gateway.app);
  apps.push((await startCoordinator(env)).app);
  apps.push(await startIngest(playground.discord, env));
  if (opts.memoryEnv) {
    const memory = await startServiceApp(MemoryService, {
      ...baseEnv(),
      ...env,
      MEMORY_PORT: '0',
      ...opts.memoryEnv,
    });
    apps.push(memory.app);
  }
  const { app: router } = await startServiceApp(
    RouterService,
    {
      ...baseEnv(),
      ...env,
      ROUTER_PORT: '0',
      ...(opts.memoryEnv ? {} : { DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '500' }),
      ...opts.routerEnv,
    },
    { clock: opts.clock },
  );
  apps.push(router);
  await playground.startAgents();
  return { playground, apps, router };
}
