import { Module, type DynamicModule } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { Messaging } from '@dirigent/messaging';
import { NatsModelGateway } from '../adapters/gateway.client';
import { NatsMemoryLenses } from '../adapters/memory.client';
import { PostgresOrchestrationLog } from './adapters/postgres/orchestrator-run.repository';
import { PostgresTasks } from './adapters/postgres/task.repository';
import { Orchestrate } from './application/orchestrate';
import { OrchestrateInDiscord } from './application/orchestrate-in-discord';
import { OrchestrationLog, TaskStore } from './application/ports';
import { Tasks } from './application/tasks';
import { Skills } from '../skills/skills.module';
import { CHAT_PORT, MEMORY_PORT, ORCHESTRATOR_SETTINGS, SKILLS_PORT } from './application/tokens';
import { orchestratorSettings, type OrchestratorModuleOptions } from './config';
import { OrchestrateHandler } from './handlers/orchestrate.handler';

export { orchestratorEntities } from './adapters/postgres/entities';
export { Tasks } from './application/tasks';
export {
  OrchestrateInDiscord,
  type AnswerPolicy,
  type OrchestratorAgent,
} from './application/orchestrate-in-discord';
export { Orchestrate } from './application/orchestrate';
export { OrchestratorConfig, type OrchestratorModuleOptions } from './config';

/** How long the orchestrator waits for memory (and the gateway's budget, which it does not ask). */
const QUERY_TIMEOUT_MS = 3000;

/**
 * The Moltbot orchestrator inside the router: `Subjects.router.orchestrate` and
 * {@link OrchestrateInDiscord} for agents configured with `orchestrator: true`, whose
 * delegations run as {@link Tasks} (deadlines on the host's `Reactor` when it provides one). The host
 * says where its `orchestrator` block and `DIRIGENT_WORKSPACE` are in its configuration,
 * provides (globally) the `DecisionLog` a Discord answer is recorded in, and its service
 * definition lists `orchestratorEntities`.
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
        {
          // The router's global skills, unless the host turns them off.
          provide: SKILLS_PORT,
          inject: [SERVICE_CONFIG, { token: Skills, optional: true }],
          useFactory: (c: C, skills?: Skills) =>
            select(c).skills === false ? null : (skills ?? null),
        },
        {
          provide: CHAT_PORT,
          inject: [Messaging],
          useFactory: (m: Messaging) => new NatsModelGateway(m, QUERY_TIMEOUT_MS).chatPort,
        },
        {
          provide: MEMORY_PORT,
          inject: [Messaging],
          useFactory: (m: Messaging) => new NatsMemoryLenses(m, QUERY_TIMEOUT_MS).memoryPort,
        },
        { provide: OrchestrationLog, useClass: PostgresOrchestrationLog },
        { provide: TaskStore, useClass: PostgresTasks },
        Tasks,
        Orchestrate,
        OrchestrateInDiscord,
      ],
      exports: [Orchestrate, OrchestrateInDiscord, Tasks],
    };
  }
}
