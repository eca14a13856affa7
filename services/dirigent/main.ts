/**
 * `npm start`: all five services in one process, for a single machine. Uses NATS and
 * Postgres when they are configured or answering, and embedded ones otherwise.
 */
import type { INestApplication } from '@nestjs/common';
import { migrate } from '@dirigent/persistence';
import {
  ConfigError,
  DEFAULT_NATS_URL,
  EmbeddedError,
  ensureNats,
  ensurePostgres,
  safeUrl,
  startServiceApp,
  type Embedded,
  type ServiceDefinition,
} from '@dirigent/service-kit';
import { DiscordIngestService } from '../discord-ingest/definition';
import { TurnCoordinatorService } from '../turn-coordinator/definition';
import { RouterService } from '../router/definition';
import { MemoryService } from '../memory/definition';
import { LlmGatewayService } from '../llm-gateway/definition';

const services: ServiceDefinition<any>[] = [
  LlmGatewayService,
  MemoryService,
  TurnCoordinatorService,
  DiscordIngestService,
  RouterService,
];

async function main(): Promise<void> {
  const dataDir = process.env.DIRIGENT_DATA_DIR ?? '.dirigent';
  const deps: Embedded[] = [];
  const apps: INestApplication[] = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    for (const dep of deps.reverse()) await dep.stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    const nats = await ensureNats(process.env.NATS_URL ?? DEFAULT_NATS_URL, dataDir);
    deps.push(nats);
    const pg = await ensurePostgres(process.env.DATABASE_URL, dataDir);
    deps.push(pg);
    console.log(
      JSON.stringify({
        msg: 'dependencies ready',
        nats: `${nats.url}${nats.embedded ? ' (embedded)' : ''}`,
        postgres: `${safeUrl(pg.url)}${pg.embedded ? ' (embedded)' : ''}`,
      }),
    );
    const applied = await migrate(pg.url);
    if (applied.length) console.log(JSON.stringify({ msg: 'migrations applied', applied }));
    const env = { ...process.env, NATS_URL: nats.url, DATABASE_URL: pg.url };
    const lines: string[] = [];
    for (const def of services) {
      const { app, port } = await startServiceApp(def, env);
      apps.push(app);
      lines.push(`  ${def.name.padEnd(17)} http://127.0.0.1:${port}/healthz`);
    }
    console.log(['', 'Dirigent is running:', ...lines, ''].join('\n'));
  } catch (e) {
    const msg = (e as Error).message;
    console.error(
      e instanceof ConfigError || e instanceof EmbeddedError ? msg : `failed to start: ${msg}`,
    );
    await stop(e instanceof ConfigError ? 2 : 1);
  }
}

void main();
