/**
 * The community soak's world: its own nats-server and scratch database, a local Discord
 * with a guild of ten channels, three people and the moderator bot, the offline model for
 * every purpose, four services in this process and the router as a child process (the
 * built main.js) that the soak SIGKILLs and restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { FakeDiscord } from '@dirigent/discord-fake';
import { KNOWN_PURPOSES } from '@dirigent/llm';
import { migrate } from '@dirigent/persistence';
import { startServiceApp } from '@dirigent/service-kit';
import { freePort, testDatabaseUrl, waitFor } from '@dirigent/testing';
import { createScratchDatabase } from '../libs/testing/src/private-services';
import { DiscordIngestService } from '../services/discord-ingest/discord-ingest.module';
import { LlmGatewayService } from '../services/llm-gateway/llm-gateway.module';
import { MemoryService } from '../services/memory/memory.module';
import { TurnCoordinatorService } from '../services/turn-coordinator/turn-coordinator.module';
import { SoakNats } from './soak-processes';

const ROUTER_MAIN = resolve(__dirname, '../services/router/main.js');

/** The five built-in agents: four with dispositions, one orchestrator. */
export const AGENTS = [
  { id: 'dit', name: 'Dit' },
  { id: 'ada', name: 'Ada' },
  { id: 'basil', name: 'Basil' },
  { id: 'clio', name: 'Clio' },
  { id: 'molt', name: 'Molt', orchestrator: true },
] as const;
export const HUMANS = ['jen', 'omar', 'lu'] as const;

/** The router as a child process, its output's tail kept. */
export class RouterProcess {
  private child?: ChildProcess;
  private tailText = '';
  kills = 0;

  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    const port = await freePort();
    const child = spawn(process.execPath, [ROUTER_MAIN], {
      env: { ...process.env, ...this.env, ROUTER_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => (this.tailText = (this.tailText + d.toString()).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the router exited:\n${this.tailText}`);
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        return res?.ok ?? false;
      },
      // A loaded machine (every service but the router shares the soak's process) starts slowly.
      180_000,
      200,
      'the router to start',
    );
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((res) => {
      child.once('exit', () => res());
      child.kill(signal);
    });
    if (signal === 'SIGKILL') this.kills++;
  }

  tail(): string {
    return this.tailText.split('\n').slice(-20).join('\n');
  }
}

export interface CommunityWorld {
  nats: SoakNats;
  /** The scratch database the router writes (dropped by `stop`). */
  databaseUrl: string;
  discord: FakeDiscord;
  guildId: string;
  channelIds: string[];
  humanIds: string[];
  router: RouterProcess;
  stop(): Promise<void>;
}

function writeConfigs(dir: string): { llm: string; router: string } {
  const llm = join(dir, 'llm.json');
  writeFileSync(
    llm,
    JSON.stringify({
      providers: [{ id: 'offline', kind: 'offline' }],
      models: [
        {
          id: 'offline',
          provider: 'offline',
          upstream: 'offline',
          inputUsdPerMTok: 0,
          outputUsdPerMTok: 0,
        },
      ],
      purposes: Object.fromEntries(KNOWN_PURPOSES.map((p) => [p, { model: 'offline' }])),
      budgets: { defaultGuildUsdPerDay: 100 },
    }),
  );
  const router = join(dir, 'router.yaml');
  writeFileSync(
    router,
    [
      'agents:',
      ...AGENTS.map(
        (a) =>
          `  - { id: ${a.id}, name: ${a.name}${'orchestrator' in a ? ', orchestrator: true' : ''} }`,
      ),
      'orchestrator:',
      '  agents:',
      '    coding: { enabled: false }',
      '',
    ].join('\n'),
  );
  return { llm, router };
}

/** Builds the world and starts the services; `stop` takes it all down. */
export async function startCommunityWorld(channels: number): Promise<CommunityWorld> {
  const nats = await SoakNats.start();
  const db = await createScratchDatabase(testDatabaseUrl());
  await migrate(db.url);
  const discord = await FakeDiscord.start({ token: `community-soak-${Date.now()}` });
  const humanIds = HUMANS.map((h) => discord.createUser({ username: h }).id);
  const guild = discord.createGuild({ name: 'community', ownerId: humanIds[0] });
  for (const id of humanIds) discord.addMember(guild.id, id);
  const channelIds = Array.from(
    { length: channels },
    (_, i) => discord.createChannel(guild.id, { name: `room-${i}` }).id,
  );
  const dir = mkdtempSync(join(tmpdir(), 'community-soak-'));
  const files = writeConfigs(dir);
  const env: Record<string, string> = {
    NATS_URL: nats.url,
    DATABASE_URL: db.url,
    LOG_LEVEL: process.env.COMMUNITY_SOAK_LOG_LEVEL ?? 'warn',
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    DIRIGENT_MODERATOR_USER_ID: discord.bot.id,
    DIRIGENT_LLM_CONFIG: files.llm,
    DIRIGENT_ROUTER_CONFIG: files.router,
    DIRIGENT_WORKSPACE: dir,
    LLM_GATEWAY_PORT: '0',
    MEMORY_PORT: '0',
    TURN_COORDINATOR_PORT: '0',
    DISCORD_INGEST_PORT: '0',
  };
  const apps: INestApplication[] = [];
  const router = new RouterProcess(env);
  const stop = async () => {
    await router.kill('SIGKILL');
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await discord.stop().catch(() => undefined);
    await db.drop().catch(() => undefined);
    await nats.stop();
  };
  try {
    for (const def of [
      LlmGatewayService,
      MemoryService,
      TurnCoordinatorService,
      DiscordIngestService,
    ])
      apps.push((await startServiceApp(def as never, env, { shutdownHooks: false })).app);
    await router.start();
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    nats,
    databaseUrl: db.url,
    discord,
    guildId: guild.id,
    channelIds,
    humanIds,
    router,
    stop,
  };
}
