import { Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { StreamSpecs } from '@dirigent/contracts';
import type { ServiceDefinition } from '@dirigent/service-kit';
import { PostgresBursts } from './adapters/postgres/burst.repository';
import { PostgresDispositions } from './adapters/postgres/disposition.repository';
import { routerEntities } from './adapters/postgres/entities';
import { PostgresFollowups } from './adapters/postgres/followup.repository';
import { PostgresInbound } from './adapters/postgres/inbound.repository';
import { BurstsCutShort } from './application/bursts-cut-short';
import { ChooseDisposition } from './application/choose-disposition';
import { ComposeReply } from './application/compose-reply';
import { DecideDryRun } from './application/decide-dry-run';
import { DeliverBeats } from './application/deliver-beats';
import { DispositionAdmin } from './application/disposition-admin';
import { ExecuteTurn } from './application/execute-turn';
import { FireFollowup } from './application/fire-followup';
import { FollowupVerdict } from './application/followup-verdict';
import { HoldBack } from './application/hold-back';
import { ListDecisions } from './application/list-decisions';
import { MentionOrchestration } from './application/mention-orchestration';
import { OnGrant } from './application/on-grant';
import { PlanReply } from './application/plan-reply';
import { ReactToMessage } from './application/react-to-message';
import { ReactiveTurn } from './application/reactive-turn';
import { ReadTheRoom } from './application/read-the-room';
import { ReplayDecision } from './application/replay-decision';
import { ResumeBursts } from './application/resume-bursts';
import { RoomProbes } from './application/room-probes';
import { ScheduleFollowup } from './application/schedule-followup';
import { SendReply } from './application/send-reply';
import { SpeculativeTurns } from './application/speculative';
import { SpeculativeRoom } from './application/speculative-room';
import { BurstStore, DispositionStore, FollowupStore, InboundStore } from './application/stores';
import { RouterConfig } from './config';
import { InputsHandler } from './handlers/inputs.handler';
import { RouterHandler } from './handlers/router.handler';
import { learningEntities, LearningModule } from './learning/learning.module';
import { orchestratorEntities, OrchestratorModule } from './orchestrator/orchestrator.module';
import { RouterJobs } from './reactor-jobs';
import { RouterLifecycle } from './router.lifecycle';
import { RouterSharedModule } from './shared.module';
import { SkillsModule, skillsEntities } from './skills/skills.module';
import { stewardEntities, StewardModule } from './steward/steward.module';

export { RouterConfig } from './config';

const em = (factory: (em: EntityManager) => unknown) => ({
  inject: [EntityManager],
  useFactory: factory,
});

/**
 * Dirigent's own agents (docs/architecture.md, "Router and orchestrator"). This module is
 * the core: the disposition router, research fan-out and synthesizer, output shapes and
 * bursts, self-follow-ups and speculative turns, with their stores
 * (`application/stores.ts`). Each other area provides its own pieces in its own module:
 * what they all share (`RouterSharedModule`), the persona learning loop (`LearningModule`),
 * the steward (`StewardModule`), the skills (`SkillsModule`) and the orchestrator for agents
 * with `orchestrator: true` (`OrchestratorModule`). Their reactor jobs are listed in
 * `reactor-jobs.ts`.
 */
@Module({
  imports: [
    RouterSharedModule,
    LearningModule,
    StewardModule,
    SkillsModule,
    OrchestratorModule.forRoot((c: RouterConfig) => ({
      orchestrator: c.file.orchestrator,
      workspace: c.DIRIGENT_WORKSPACE,
      skills: c.DIRIGENT_ROUTER_SKILLS,
    })),
  ],
  controllers: [RouterHandler, InputsHandler],
  providers: [
    { provide: DispositionStore, ...em((e) => new PostgresDispositions(e)) },
    { provide: FollowupStore, ...em((e) => new PostgresFollowups(e)) },
    { provide: InboundStore, ...em((e) => new PostgresInbound(e)) },
    { provide: BurstStore, ...em((e) => new PostgresBursts(e)) },
    HoldBack,
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
  entities: [
    ...routerEntities,
    ...learningEntities,
    ...orchestratorEntities,
    ...stewardEntities,
    ...skillsEntities,
  ],
  module: () => RouterModule,
};
