import 'reflect-metadata';
import {
  Global,
  Module,
  type DynamicModule,
  type INestApplication,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigModule } from '@nestjs/config';
import type { StreamSpec } from '@dirigent/contracts';
import { metricsRegistry, startTracing, type DurableEventOptions } from '@dirigent/messaging';
import type { Options } from '@mikro-orm/postgresql';
import type { Clock } from './clock';
import { ConfigError, loadConfig, type BaseConfig } from './config';
import { CoreModule } from './core.module';
import { connectJetStream } from './microservice';

export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');

/** Everything needed to boot one service, standalone or beside the others. */
export interface ServiceDefinition<C extends BaseConfig = BaseConfig> {
  name: string;
  /** e.g. `TURN_COORDINATOR_PORT` */
  portEnv: string;
  defaultPort: number;
  /** The config class: extends `BaseConfig` and declares `portEnv`. */
  config: new () => C;
  streams: StreamSpec[];
  entities?: Options['entities'];
  /**
   * The service's own module; it can inject its config with `@Inject(SERVICE_CONFIG)` or
   * read it through Nest's `ConfigService`.
   */
  module: (config: C) => Type | DynamicModule;
  /** Durable-consumer settings that come from configuration, by durable name. */
  consumers?: (config: C) => Record<string, Partial<DurableEventOptions>>;
}

/** Builds (does not listen) the Nest application of a service. Throws ConfigError on bad config. */
export interface CreateOptions {
  /**
   * Let Nest close the app on SIGTERM/SIGINT (default). A launcher that runs several
   * services in one process turns this off and closes them itself, in order, before it
   * stops the databases they use.
   */
  shutdownHooks?: boolean;
  /** The service's time; a test passes a `SettableClock` to move it (default: the system's). */
  clock?: Clock;
}

export async function createServiceApp<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  env: NodeJS.ProcessEnv = process.env,
  opts: CreateOptions = {},
): Promise<{ app: INestApplication; config: C; port: number }> {
  // Validated before the app exists: the port and the service's module are built from it.
  const config = loadConfig(def.config, env);

  @Global()
  @Module({
    imports: [
      // `load`, not `validate`: forRoot copies a validated object's fields into
      // process.env, which would leak one service's settings into the next one sharing
      // the process (`npm start`, tests).
      ConfigModule.forRoot({
        isGlobal: true,
        ignoreEnvFile: true,
        skipProcessEnv: true,
        load: [() => config],
      }),
    ],
    providers: [{ provide: SERVICE_CONFIG, useValue: config }],
    exports: [SERVICE_CONFIG],
  })
  class ServiceConfigModule {}

  @Module({
    imports: [
      ServiceConfigModule,
      CoreModule.forRoot({
        service: def.name,
        natsUrl: config.NATS_URL,
        natsUser: config.NATS_USER,
        natsPassword: config.NATS_PASSWORD,
        databaseUrl: config.DATABASE_URL,
        logLevel: config.LOG_LEVEL,
        // nestjs-pino keeps one root logger per process: when several services share a
        // process (`npm start`) their lines carry one name, so the launcher names it.
        logName: env.DIRIGENT_LOG_NAME || undefined,
        streams: def.streams,
        entities: def.entities,
        clock: opts.clock,
      }),
      def.module(config),
    ],
  })
  class ServiceRootModule {}
  Object.defineProperty(ServiceRootModule, 'name', { value: `${def.name}-root` });

  const app = await NestFactory.create(ServiceRootModule, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  connectJetStream(app, def.name, def.consumers?.(config));
  if (opts.shutdownHooks !== false) app.enableShutdownHooks();
  const port = Number((config as Record<string, unknown>)[def.portEnv] ?? def.defaultPort);
  return { app, config, port };
}

/** Creates the app and listens on its port; returns the bound port. */
export async function startServiceApp<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  env: NodeJS.ProcessEnv = process.env,
  opts: CreateOptions = {},
): Promise<{ app: INestApplication; port: number }> {
  const { app, port } = await createServiceApp(def, env, opts);
  await app.init();
  await app.startAllMicroservices();
  await app.listen(port, '0.0.0.0');
  const address = app.getHttpServer().address();
  const bound = typeof address === 'object' && address ? address.port : port;
  app.get(Logger).log(`${def.name} listening on :${bound}`);
  return { app, port: bound };
}

/** `main.ts` of a service: one clear line and a non-zero exit on bad config or a failed start. */
export function runService<C extends BaseConfig>(def: ServiceDefinition<C>): void {
  // One service per process: its metrics carry its name (the dashboard's rows filter by it).
  metricsRegistry.setDefaultLabels({ service: def.name });
  startTracing(def.name)
    .then((tracing) => {
      // What is still buffered is exported while the app closes (SIGTERM).
      if (tracing) process.once('SIGTERM', () => void tracing.shutdown().catch(() => undefined));
      return startServiceApp(def);
    })
    .catch((e: Error) => {
      if (e instanceof ConfigError) {
        console.error(`${def.name}: ${e.message}`);
        process.exit(2);
      }
      console.error(`${def.name}: failed to start: ${e.message}`);
      process.exit(1);
    });
}

/** What ends the process on a refusal no retry can mend (one line, then an exit code). */
export type FatalHandler = (line: string, exitCode: number) => void;

let fatalHandler: FatalHandler = (line, exitCode) => {
  console.error(line);
  process.exit(exitCode);
};

/**
 * Replaces how {@link exitFatally} ends the process: `npm start`, which runs every service in
 * one process, stops them all and its embedded NATS and Postgres first.
 */
export function onFatal(handler: FatalHandler): void {
  fatalHandler = handler;
}

/**
 * Ends the process with one line saying what to do, no stack trace, and a non-zero exit code
 * (3 unless given): for a refusal a retry cannot mend, such as Discord refusing the bot's
 * token or its privileged intents.
 *
 * @example
 * exitFatally('Discord refused DISCORD_TOKEN (close code 4004): …');
 */
export function exitFatally(line: string, exitCode = 3): void {
  fatalHandler(line, exitCode);
}
