import {
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { StreamSpecs } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { createProviders, LlmGateway } from '@dirigent/llm';
import { reportBudgets, reportCooldowns } from './adapters/metrics';
import { PolicyStore } from './adapters/policy-store';
import { PostgresBudgetLimits } from './adapters/postgres-budget-limits';
import { PostgresBudgets } from './adapters/postgres-budgets';
import { PostgresLedger } from './adapters/postgres-ledger';
import { llmGatewayEntities } from './adapters/postgres/entities';
import { BatchedReservations, type SqlClient } from './adapters/postgres/reservation-batch';
import { ReservationHolders } from './adapters/reservation-holders';
import { LedgerConsumer } from './adapters/ledger-consumer';
import { UsagePublisher } from './adapters/usage-publisher';
import { CompleteChat } from './application/complete-chat';
import { CreateEmbeddings } from './application/create-embeddings';
import { GetPolicy } from './application/get-policy';
import { GetSpend } from './application/get-spend';
import { GetBudget } from './application/get-budget';
import { BudgetHandler } from './handlers/budget.handler';
import { GetUsage } from './application/get-usage';
import { ListModels } from './application/list-models';
import { BudgetLimits, PurposeRoutes, SpendReports } from './application/ports';
import { RemoveGuildBudget } from './application/remove-guild-budget';
import { RemovePurposeRoute } from './application/remove-purpose-route';
import { SetGuildBudget } from './application/set-guild-budget';
import { SetPurposeRoute } from './application/set-purpose-route';
import { LlmGatewayConfig } from './config';
import { AdminController } from './handlers/admin.controller';
import { BodyParsing } from './handlers/body-parsing';
import { ChatRoute } from './handlers/chat.route';
import { LlmHandlers } from './handlers/llm.handlers';
import { OpenAiController } from './handlers/openai.controller';

/**
 * Starts the ledger consumer; at shutdown publishes and writes what is in flight before
 * NATS and Postgres close.
 */
@Injectable()
class Drain implements BeforeApplicationShutdown, OnModuleInit {
  constructor(
    private readonly gateway: LlmGateway,
    private readonly usage: UsagePublisher,
    private readonly ledger: LedgerConsumer,
    private readonly holders: ReservationHolders,
    private readonly reservations: BatchedReservations,
    private readonly budget: GetBudget,
  ) {}
  async onModuleInit(): Promise<void> {
    reportCooldowns(this.gateway);
    reportBudgets(() => this.budget.usedToday());
    await this.ledger.start();
  }
  async beforeApplicationShutdown(): Promise<void> {
    await this.gateway.drain();
    await this.usage.drain();
    await this.ledger.stop();
    await this.reservations.close();
    // Give back what this instance still holds only when its ledger is written: a record
    // still in the stream is settled by another replica or at the next start.
    await this.holders.stop().catch(() => undefined);
  }
}

/** The model gateway: OpenAI-compatible HTTP, NATS request/reply, admin API. */
@Module({
  controllers: [OpenAiController, AdminController, LlmHandlers, BudgetHandler],
  providers: [
    ChatRoute,
    BodyParsing,
    {
      provide: ReservationHolders,
      inject: [EntityManager, SERVICE_CONFIG],
      useFactory: (em: EntityManager, config: LlmGatewayConfig) =>
        new ReservationHolders(
          em,
          config.llm.reliability.instanceHeartbeatMs,
          config.llm.reliability.instanceStaleMs,
        ),
    },
    {
      provide: UsagePublisher,
      inject: [Messaging, ReservationHolders],
      useFactory: (messaging: Messaging, holders: ReservationHolders) =>
        new UsagePublisher(messaging, holders.instanceId),
    },
    {
      provide: LedgerConsumer,
      inject: [EntityManager, Messaging],
      useFactory: (em: EntityManager, messaging: Messaging) =>
        new LedgerConsumer(messaging.client, new PostgresLedger(em)),
    },
    {
      provide: BatchedReservations,
      inject: [EntityManager, ReservationHolders],
      useFactory: (em: EntityManager, holders: ReservationHolders) => {
        // A connection of the ORM's pool, kept for the reservation statements.
        const client = em.getConnection().getKnex().client as {
          acquireConnection(): Promise<SqlClient>;
          releaseConnection(c: SqlClient): Promise<unknown>;
        };
        return new BatchedReservations(
          () => client.acquireConnection(),
          (c) => void client.releaseConnection(c),
          holders.instanceId,
        );
      },
    },
    {
      provide: PostgresBudgets,
      inject: [EntityManager, BatchedReservations],
      useFactory: (em: EntityManager, batch: BatchedReservations) => new PostgresBudgets(em, batch),
    },
    { provide: SpendReports, useExisting: PostgresBudgets },
    {
      provide: BudgetLimits,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresBudgetLimits(em),
    },
    {
      provide: PolicyStore,
      inject: [EntityManager, SERVICE_CONFIG],
      useFactory: (em: EntityManager, config: LlmGatewayConfig) => new PolicyStore(em, config.llm),
    },
    { provide: PurposeRoutes, useExisting: PolicyStore },
    {
      provide: LlmGateway,
      inject: [SERVICE_CONFIG, PostgresBudgets, PolicyStore, UsagePublisher],
      useFactory: (
        config: LlmGatewayConfig,
        budgets: PostgresBudgets,
        policy: PolicyStore,
        usage: UsagePublisher,
      ) =>
        new LlmGateway({
          config: config.llm,
          providers: createProviders(config.llm.providers, config.providerKeys),
          budgets,
          policy,
          usage,
          secrets: Object.values(config.providerKeys),
        }),
    },
    CompleteChat,
    CreateEmbeddings,
    ListModels,
    GetPolicy,
    SetPurposeRoute,
    RemovePurposeRoute,
    SetGuildBudget,
    RemoveGuildBudget,
    GetSpend,
    GetBudget,
    GetUsage,
    Drain,
  ],
})
export class LlmGatewayModule {}

export const LlmGatewayService: ServiceDefinition<LlmGatewayConfig> = {
  name: 'llm-gateway',
  portEnv: 'LLM_GATEWAY_PORT',
  defaultPort: 3005,
  config: LlmGatewayConfig,
  streams: [StreamSpecs.llmUsage],
  entities: llmGatewayEntities,
  module: () => LlmGatewayModule,
};
