import { Global, Logger, Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { StreamSpecs } from '@dirigent/contracts';
import { KeyedQueue, Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { Reactor } from '@dirigent/reactor';
import { DurableTimers } from '@dirigent/timers';
import { JetStreamChannelHistory } from './adapters/channel-history';
import { NatsTurnCoordination } from './adapters/coordinator.client';
import { routerEntities } from './adapters/postgres/entities';
import { NatsModelGateway } from './adapters/gateway.client';
import { NatsChannelMembers } from './adapters/members.client';
import { NatsMemoryLenses } from './adapters/memory.client';
import { JetStreamOutbox } from './adapters/outbox';
import { PostgresDecisionLog } from './adapters/postgres/decision.repository';
import { PostgresDispositions } from './adapters/postgres/disposition.repository';
import { PostgresBursts } from './adapters/postgres/burst.repository';
import { PostgresFollowups } from './adapters/postgres/followup.repository';
import { PostgresPersonas } from './adapters/postgres/persona-version.repository';
import { PostgresInbound } from './adapters/postgres/inbound.repository';
import { Agents } from './application/agents';
import { BurstsCutShort } from './application/bursts-cut-short';
import { ChooseDisposition } from './application/choose-disposition';
import { FollowupVerdict } from './application/followup-verdict';
import { MentionOrchestration } from './application/mention-orchestration';
import { PlanReply } from './application/plan-reply';
import { ReactiveTurn } from './application/reactive-turn';
import { RoomProbes } from './application/room-probes';
import { SendReply } from './application/send-reply';
import { SpeculativeRoom } from './application/speculative-room';
import { ChannelActivity } from './application/channel-activity';
import { ComposeReply } from './application/compose-reply';
import { DecideDryRun } from './application/decide-dry-run';
import { DispositionAdmin } from './application/disposition-admin';
import { ExecuteTurn } from './application/execute-turn';
import { DeliverBeats } from './application/deliver-beats';
import { FireFollowup } from './application/fire-followup';
import { ListDecisions } from './application/list-decisions';
import { OnGrant } from './application/on-grant';
import { PersonaLearning } from './application/persona-learning';
import { HoldBack } from './application/hold-back';
import { Personas } from './application/personas';
import {
  ChannelHistory,
  ChannelMembers,
  DecisionLog,
  DispositionStore,
  BurstStore,
  FollowupStore,
  InboundStore,
  MemoryLenses,
  ModelGateway,
  PersonaStore,
  RouterOutbox,
  TurnCoordination,
} from './application/ports';
import { ReactToMessage } from './application/react-to-message';
import { ReadTheRoom } from './application/read-the-room';
import { ReplayDecision } from './application/replay-decision';
import { ResumeBursts } from './application/resume-bursts';
import { ROUTER_SERVICE, ScheduleFollowup } from './application/schedule-followup';
import { SpeculativeTurns } from './application/speculative';
import { RouterConfig } from './config';
import { InputsHandler } from './handlers/inputs.handler';
import { PersonaHandler } from './handlers/persona.handler';
import { RouterHandler } from './handlers/router.handler';
import { orchestratorEntities, OrchestratorModule } from './orchestrator/orchestrator.module';
import { RouterJobs } from './reactor-jobs';
import { RouterLifecycle } from './router.lifecycle';
import { StewardUpkeep } from './steward/application/upkeep';
import { stewardEntities, StewardModule } from './steward/steward.module';
import { SkillsModule } from './skills/skills.module';

export { RouterConfig } from './config';

const em = (factory: (em: EntityManager) => unknown) => ({
  inject: [EntityManager],
  useFactory: factory,
});
const nats = (factory: (m: Messaging, c: RouterConfig) => unknown) => ({
  inject: [Messaging, SERVICE_CONFIG],
  useFactory: factory,
});

/**
 * The router's reactor and channel lanes, global so the orchestrator module's tasks arm
 * their deadlines on the same durable timers (handed to it by the router's timer consumer).
 */
@Global()
@Module({
  providers: [
    { provide: KeyedQueue, useValue: new KeyedQueue() },
    {
      provide: Reactor,
      inject: [Messaging, KeyedQueue],
      useFactory: async (m: Messaging, lanes: KeyedQueue) => {
        const log = new Logger('router:reactor');
        return new Reactor({
          timers: await DurableTimers.open(m, ROUTER_SERVICE),
          lanes,
          log: (o) => log.debug?.(o, o.fired ? 'job fired' : 'job not due'),
        });
      },
    },
  ],
  exports: [KeyedQueue, Reactor],
})
class RouterReactorModule {}

/**
 * Dirigent's own agents (docs/architecture.md, "Router and orchestrator"): the disposition router, research
 * fan-out and synthesizer, output shapes and bursts, self-follow-ups and speculative
 * turns; the orchestrator for agents with `orchestrator: true`.
 */
@Module({
  imports: [
    RouterReactorModule,
    StewardModule,
    SkillsModule,
    OrchestratorModule.forRoot((c: RouterConfig) => ({
      orchestrator: c.file.orchestrator,
      workspace: c.DIRIGENT_WORKSPACE,
      skills: c.DIRIGENT_ROUTER_SKILLS,
    })),
  ],
  controllers: [RouterHandler, InputsHandler, PersonaHandler],
  providers: [
    { provide: DispositionStore, ...em((e) => new PostgresDispositions(e)) },
    { provide: DecisionLog, ...em((e) => new PostgresDecisionLog(e)) },
    { provide: FollowupStore, ...em((e) => new PostgresFollowups(e)) },
    { provide: PersonaStore, ...em((e) => new PostgresPersonas(e)) },
    { provide: InboundStore, ...em((e) => new PostgresInbound(e)) },
    { provide: BurstStore, ...em((e) => new PostgresBursts(e)) },
    {
      provide: ModelGateway,
      ...nats((m, c) => new NatsModelGateway(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: MemoryLenses,
      ...nats((m, c) => new NatsMemoryLenses(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: ChannelMembers,
      ...nats((m, c) => new NatsChannelMembers(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: TurnCoordination,
      ...nats((m, c) => new NatsTurnCoordination(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    { provide: RouterOutbox, ...nats((m) => new JetStreamOutbox(m)) },
    { provide: ChannelHistory, ...nats((m) => new JetStreamChannelHistory(m)) },
    Agents,
    Personas,
    HoldBack,
    PersonaLearning,
    ChannelActivity,
    ComposeReply,
    RoomProbes,
    ReadTheRoom,
    ChooseDisposition,
    PlanReply,
    ScheduleFollowup,
    DeliverBeats,
    SendReply,
    ExecuteTurn,
    BurstsCutShort,
    ResumeBursts,
    SpeculativeRoom,
    SpeculativeTurns,
    ReactiveTurn,
    MentionOrchestration,
    ReactToMessage,
    OnGrant,
    FollowupVerdict,
    FireFollowup,
    DecideDryRun,
    DispositionAdmin,
    ListDecisions,
    ReplayDecision,
    StewardUpkeep,
    RouterLifecycle,
    RouterJobs,
  ],
})
export class RouterModule {}

export const RouterService: ServiceDefinition<RouterConfig> = {
  name: 'router',
  portEnv: 'ROUTER_PORT',
  defaultPort: 3003,
  config: RouterConfig,
  streams: [
    StreamSpecs.discordEvents,
    StreamSpecs.discordCommands,
    StreamSpecs.turnComplete,
    StreamSpecs.turnGranted,
    StreamSpecs.timerFired,
    StreamSpecs.routerEvents,
    StreamSpecs.eventStore,
    StreamSpecs.stewardEvents,
    StreamSpecs.deadLetter,
  ],
  entities: [...routerEntities, ...orchestratorEntities, ...stewardEntities],
  module: () => RouterModule,
};
