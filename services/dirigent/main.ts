/**
 * `npm start`: all five services in one process, for a single machine. Uses NATS and
 * Postgres when they are configured or answering, and embedded ones otherwise. The
 * environment it gives the services is written to `<data dir>/services.env.json`, where
 * `npm run dev -- <service>` finds it; `DIRIGENT_START_WITHOUT=<service>,…` leaves
 * services out, for the one run apart.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { describeLlmChoice } from '@dirigent/llm';
import { startTracing } from '@dirigent/messaging';
import { migrate } from '@dirigent/persistence';
import { botPermissions } from '@dirigent/skills';
import { startPlayground, type Playground } from '@dirigent/playground';
import {
  ConfigError,
  DEFAULT_NATS_URL,
  EmbeddedError,
  ensureNats,
  ensurePostgres,
  onFatal,
  safeUrl,
  startServiceApp,
  type Embedded,
  type ServiceDefinition,
} from '@dirigent/service-kit';
import { DiscordIngestService } from '../discord-ingest/discord-ingest.module';
import { applicationIdOf, inviteLink } from '../discord-ingest/adapters/invite-link';
import { TurnCoordinatorService } from '../turn-coordinator/turn-coordinator.module';
import { RouterService } from '../router/router.module';
import { MemoryService } from '../memory/memory.module';
import { LlmGatewayService } from '../llm-gateway/llm-gateway.module';

const ALL: ServiceDefinition<any>[] = [
  LlmGatewayService,
  MemoryService,
  TurnCoordinatorService,
  DiscordIngestService,
  RouterService,
];

/** The services to start: all but those `DIRIGENT_START_WITHOUT` names (a bad name: exit 2). */
function servicesToStart(without = ''): ServiceDefinition<any>[] {
  const names = without
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !ALL.some((d) => d.name === n));
  if (unknown.length) {
    throw new ConfigError(
      `DIRIGENT_START_WITHOUT: unknown service ${unknown.join(', ')} (one of ${ALL.map((d) => d.name).join(', ')})`,
    );
  }
  return ALL.filter((d) => !names.includes(d.name));
}

async function main(): Promise<void> {
  const dataDir = process.env.DIRIGENT_DATA_DIR ?? '.dirigent';
  const deps: Embedded[] = [];
  const apps: INestApplication[] = [];
  let playground: Playground | null = null;
  let stopping = false;
  // Spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (one provider for all five).
  const tracing = await startTracing('dirigent');
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    await playground?.stop().catch(() => undefined);
    for (const dep of deps.reverse()) await dep.stop().catch(() => undefined);
    process.exit(code);
  };
  // Discord refusing the bot (token, intents) ends every service, with its one line.
  onFatal((line, code) => {
    console.error(line);
    void stop(code);
  });
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    const services = servicesToStart(process.env.DIRIGENT_START_WITHOUT);
    const nats = await ensureNats(process.env.NATS_URL ?? DEFAULT_NATS_URL, dataDir);
    deps.push(nats);
    const pg = await ensurePostgres(process.env.DATABASE_URL, dataDir);
    deps.push(pg);
    console.log(
      JSON.stringify({
        msg: 'dependencies ready',
        nats: `${nats.url}${nats.embedded ? ' (embedded)' : ''}`,
        postgres: `${safeUrl(pg.url)}${pg.embedded ? ` (embedded, data in ${pg.dataDir})` : ''}`,
      }),
    );
    const applied = await migrate(pg.url);
    if (applied.length) console.log(JSON.stringify({ msg: 'migrations applied', applied }));
    // Without a Discord token there is nothing to conduct: show Dirigent on a local Discord
    // with three demo agents and Dit instead (its router config is generated under dataDir).
    if (!process.env.DISCORD_TOKEN) {
      playground = await startPlayground({
        natsUrl: nats.url,
        databaseUrl: pg.url,
        baseEnv: process.env,
        dataDir,
      });
    }
    // What the services are given, also written for a service run apart (`npm run dev --
    // <service>`) to join them: private, like the control token it may hold.
    const shared = { NATS_URL: nats.url, DATABASE_URL: pg.url, ...(playground?.env ?? {}) };
    const env: NodeJS.ProcessEnv = { ...process.env, DIRIGENT_LOG_NAME: 'dirigent', ...shared };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(resolve(dataDir, 'services.env.json'), `${JSON.stringify(shared, null, 2)}\n`, {
      mode: 0o600,
    });
    // Which models answer: DIRIGENT_LLM_CONFIG, else the provider keys set, else offline.
    const lines: string[] = [`  ${describeLlmChoice(process.env)}`, ''];
    const coordinator = TurnCoordinatorService;
    let coordinatorPort = Number(env[coordinator.portEnv] ?? coordinator.defaultPort);
    for (const def of services) {
      const { app, port } = await startServiceApp(def, env, { shutdownHooks: false });
      apps.push(app);
      if (def.name === coordinator.name) coordinatorPort = port;
      lines.push(`  ${def.name.padEnd(17)} http://127.0.0.1:${port}/healthz`);
    }
    const control = `http://127.0.0.1:${coordinatorPort}/dirigent`;
    if (playground) {
      await playground.startAgents({ controlUrl: control });
      lines.push('', `  control page      ${control}`);
      if (!process.env.DIRIGENT_CONTROL_TOKEN && env.DIRIGENT_CONTROL_TOKEN) {
        // A generated token goes to a private file, not to the log.
        const tokenFile = resolve(dataDir, 'control-token');
        writeFileSync(tokenFile, `${env.DIRIGENT_CONTROL_TOKEN}\n`, { mode: 0o600 });
        lines.push(`  (its token is in ${tokenFile})`);
      }
      lines.push('', `Open the playground: ${playground.url}`);
    } else {
      lines.push(
        '',
        `  control page      ${control}`,
        '',
        `  ${invite(process.env.DISCORD_TOKEN!)}`,
      );
    }
    const apart = ALL.filter((d) => !services.includes(d)).map((d) => d.name);
    if (apart.length) lines.push('', `  left out (run apart): ${apart.join(', ')}`);
    console.log(['', 'Dirigent is running:', ...lines, ''].join('\n'));
  } catch (e) {
    const msg = (e as Error).message;
    console.error(
      e instanceof ConfigError || e instanceof EmbeddedError ? msg : `failed to start: ${msg}`,
    );
    await stop(e instanceof ConfigError ? 2 : 1);
  }
}

/** Where to add the bot to a server, with exactly the permissions its parts declare. */
function invite(token: string): string {
  const id = applicationIdOf(token);
  const permissions = botPermissions();
  return id
    ? `invite the bot: ${inviteLink(id, permissions)}`
    : `invite the bot: Developer Portal → your application → OAuth2 → URL Generator, scopes bot and applications.commands, permissions ${permissions.join(', ')}`;
}

void main();
