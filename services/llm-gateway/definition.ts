import {
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import { StreamSpecs } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { createProviders, GatewayError, LlmGateway } from '@dirigent/llm';
import { AdminController } from './admin.controller';
import { LlmGatewayConfigSchema, type LlmGatewayConfig } from './config';
import { OpenAiController, sendError } from './http.controller';
import { reportCooldowns } from './metrics';
import { LlmNatsHandlers } from './nats.handlers';
import {
  GuildBudgets,
  PgBudgetStore,
  PolicyStore,
  ReservationHolders,
  Sql,
  WriteBehind,
} from './stores';

export { LlmGatewayConfigSchema };

/** Large prompts are normal here; Nest's default JSON limit (100 kB) is not. */
const BODY_LIMIT = '32mb';

/**
 * Parses JSON for the gateway's routes before Nest's own parser (which then skips the
 * already-read body), with OpenAI-shaped errors for unreadable bodies.
 */
@Injectable()
class BodyParsing {
  constructor(host: HttpAdapterHost) {
    const app = host.httpAdapter?.getInstance<express.Express>();
    if (!app) return;
    const parse = express.json({ limit: BODY_LIMIT, type: () => true });
    const onError = (
      err: Error & { status?: number; type?: string },
      _req: Request,
      res: Response,
      next: NextFunction,
    ) => {
      if (!err) return next();
      const tooLarge = err.type === 'entity.too.large';
      sendError(
        res,
        new GatewayError(
          tooLarge ? 413 : 400,
          'invalid_request_error',
          tooLarge ? 'body_too_large' : 'invalid_json',
          tooLarge
            ? `(body): larger than ${BODY_LIMIT}`
            : `(body): not valid JSON (${err.message})`,
          '(body)',
        ),
      );
    };
    for (const path of ['/v1', '/admin/llm']) app.use(path, parse, onError);
  }
}

/** Settles and records what is in flight before NATS and Postgres close. */
@Injectable()
class Drain implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    private readonly gateway: LlmGateway,
    private readonly writes: WriteBehind,
    private readonly holders: ReservationHolders,
    private readonly sql: Sql,
  ) {}
  async beforeApplicationShutdown(): Promise<void> {
    await this.gateway.drain();
    await this.writes.drain(true);
    await this.holders.stop().catch(() => undefined);
  }
  async onApplicationShutdown(): Promise<void> {
    await this.sql.close();
  }
}

/** The model gateway: OpenAI-compatible HTTP, NATS request/reply, admin API. */
@Module({
  controllers: [OpenAiController, AdminController],
  providers: [
    BodyParsing,
    {
      provide: Sql,
      inject: [SERVICE_CONFIG],
      useFactory: (config: LlmGatewayConfig) => new Sql(config.DATABASE_URL),
    },
    {
      provide: ReservationHolders,
      inject: [Sql, SERVICE_CONFIG],
      useFactory: (sql: Sql, config: LlmGatewayConfig) =>
        new ReservationHolders(
          sql,
          config.llm.reliability.instanceHeartbeatMs,
          config.llm.reliability.instanceStaleMs,
        ),
    },
    {
      provide: WriteBehind,
      inject: [Sql, Messaging, ReservationHolders],
      useFactory: (sql: Sql, messaging: Messaging, holders: ReservationHolders) =>
        new WriteBehind(sql, messaging, holders.instanceId),
    },
    {
      provide: PgBudgetStore,
      inject: [Sql, WriteBehind, ReservationHolders],
      useFactory: (sql: Sql, writes: WriteBehind, holders: ReservationHolders) =>
        new PgBudgetStore(sql, writes, holders),
    },
    { provide: GuildBudgets, inject: [Sql], useFactory: (sql: Sql) => new GuildBudgets(sql) },
    {
      provide: PolicyStore,
      inject: [Sql, SERVICE_CONFIG],
      useFactory: (sql: Sql, config: LlmGatewayConfig) => new PolicyStore(sql, config.llm),
    },
    {
      provide: LlmGateway,
      inject: [SERVICE_CONFIG, PgBudgetStore, PolicyStore, WriteBehind],
      useFactory: (
        config: LlmGatewayConfig,
        budgets: PgBudgetStore,
        policy: PolicyStore,
        usage: WriteBehind,
      ) => {
        const gateway = new LlmGateway({
          config: config.llm,
          providers: createProviders(config.llm.providers, config.providerKeys),
          budgets,
          policy,
          usage,
          secrets: Object.values(config.providerKeys),
        });
        reportCooldowns(gateway);
        return gateway;
      },
    },
    LlmNatsHandlers,
    Drain,
  ],
})
export class LlmGatewayModule {}

export const LlmGatewayService: ServiceDefinition<typeof LlmGatewayConfigSchema> = {
  name: 'llm-gateway',
  portEnv: 'LLM_GATEWAY_PORT',
  defaultPort: 3005,
  configSchema: LlmGatewayConfigSchema,
  streams: [StreamSpecs.llmUsage],
  module: () => LlmGatewayModule,
};
