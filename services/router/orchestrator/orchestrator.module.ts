import { Module, type DynamicModule } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { GatewayChat } from './adapters/gateway-chat';
import { NatsMemory } from './adapters/nats-memory';
import { PostgresOrchestrationLog } from './adapters/postgres/orchestrator-run.repository';
import { Orchestrate } from './application/orchestrate';
import { OrchestrateInDiscord } from './application/orchestrate-in-discord';
import { OrchestrationLog } from './application/ports';
import { ORCHESTRATOR_SETTINGS } from './application/tokens';
import { orchestratorSettings, type OrchestratorModuleOptions } from './config';
import { OrchestrateHandler } from './handlers/orchestrate.handler';

export { orchestratorEntities } from './adapters/postgres/entities';
export { OrchestrateInDiscord, type OrchestratorAgent } from './application/orchestrate-in-discord';
export { Orchestrate } from './application/orchestrate';
export { OrchestratorConfig, type OrchestratorModuleOptions } from './config';

/**
 * The Moltbot orchestrator inside the router: `Subjects.router.orchestrate` and
 * {@link OrchestrateInDiscord} for agents configured with `orchestrator: true`. The host
 * says where its `orchestrator` block and `DIRIGENT_WORKSPACE` are in its configuration;
 * its service definition lists `orchestratorEntities`.
 *
 * @example
 * imports: [OrchestratorModule.forRoot((c: RouterConfig) => ({ orchestrator: c.file.orchestrator, workspace: c.DIRIGENT_WORKSPACE }))]
 */
@Module({})
export class OrchestratorModule {
  static forRoot<C>(select: (serviceConfig: C) => OrchestratorModuleOptions): DynamicModule {
    return {
      module: OrchestratorModule,
      controllers: [OrchestrateHandler],
      providers: [
        {
          provide: ORCHESTRATOR_SETTINGS,
          inject: [SERVICE_CONFIG],
          useFactory: (c: C) => orchestratorSettings(select(c)),
        },
        GatewayChat,
        NatsMemory,
        { provide: OrchestrationLog, useClass: PostgresOrchestrationLog },
        Orchestrate,
        OrchestrateInDiscord,
      ],
      exports: [Orchestrate, OrchestrateInDiscord],
    };
  }
}
