import { Global, Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { EventStore } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../config';
import { NatsStewardDiscord } from './adapters/discord.client';
import { ProposalRow } from './adapters/postgres/proposal.entity';
import { PostgresProposals } from './adapters/postgres/proposal.read-model';
import { PostgresRestructureJournal } from './adapters/postgres/restructure-journal';
import { RestructureStepRow } from './adapters/postgres/restructure-step.entity';
import { NatsRestructureDiscord } from './adapters/restructure-discord';
import { NatsUpkeepMemory } from './adapters/upkeep-memory';
import { NatsArchiveMemory } from './adapters/archive-memory';
import { ArchiveHighlights } from './application/archive-highlights';
import { JetStreamStewardEvents } from './adapters/steward-events';
import { NatsHeldDecisions } from './adapters/held-decisions';
import { DecideProposal } from './application/decide-proposal';
import { ModChannels } from './application/mod-channels';
import { ProposalActions } from './application/proposal-actions';
import { ProposalEffects } from './application/proposal-effects';
import { ProposalPosts } from './application/proposal-posts';
import { ProposalService } from './application/proposals';
import { RestructureDiscord, RestructureJournal, RestructureRun } from './application/restructure';
import { StewardUpkeep } from './application/upkeep';
import { UpkeepProposer } from './application/upkeep-proposer';
import { UpkeepMemory, UpkeepSurvey } from './application/upkeep-survey';
import { RequestProposal } from './application/request-proposal';
import {
  HeldDecisions,
  ProposalReadModel,
  StewardDiscord,
  StewardEvents,
} from './application/ports';
import { StewardHandler } from './handlers/steward.handler';
import { StewardLifecycle } from './steward.lifecycle';

export const stewardEntities = [ProposalRow, RestructureStepRow];

/**
 * The steward (docs/architecture.md, "Steward"): each guild's mod channel, proposals as
 * event-sourced aggregates decided by ✅/❌ of ManageGuild members, executed once, expired by
 * durable timer; its upkeep jobs (`StewardUpkeep`). Global: the skill system proposes
 * through {@link RequestProposal} (the limits); an
 * approved call runs through its `SkillRunner` ({@link ProposalActions}).
 */
@Global()
@Module({
  controllers: [StewardHandler],
  providers: [
    { provide: EventStore, inject: [Messaging], useFactory: (m: Messaging) => new EventStore(m) },
    {
      provide: StewardDiscord,
      inject: [Messaging, SERVICE_CONFIG],
      useFactory: (m: Messaging, c: RouterConfig) =>
        new NatsStewardDiscord(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS),
    },
    {
      provide: ProposalReadModel,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresProposals(em),
    },
    {
      provide: StewardEvents,
      inject: [Messaging],
      useFactory: (m: Messaging) => new JetStreamStewardEvents(m),
    },
    {
      provide: HeldDecisions,
      inject: [Messaging],
      useFactory: (m: Messaging) => new NatsHeldDecisions(m),
    },
    {
      provide: RestructureDiscord,
      inject: [Messaging, SERVICE_CONFIG],
      useFactory: (m: Messaging, c: RouterConfig) =>
        new NatsRestructureDiscord(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS),
    },
    {
      provide: ArchiveHighlights,
      inject: [Messaging, SERVICE_CONFIG],
      useFactory: (m: Messaging, c: RouterConfig) =>
        new ArchiveHighlights(new NatsArchiveMemory(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: RestructureJournal,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresRestructureJournal(em),
    },
    RestructureRun,
    {
      provide: UpkeepMemory,
      inject: [Messaging, SERVICE_CONFIG],
      useFactory: (m: Messaging, c: RouterConfig) =>
        new NatsUpkeepMemory(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS),
    },
    UpkeepSurvey,
    UpkeepProposer,
    ProposalService,
    RequestProposal,
    ModChannels,
    ProposalActions,
    ProposalEffects,
    ProposalPosts,
    DecideProposal,
    StewardUpkeep,
    StewardLifecycle,
  ],
  exports: [ProposalService, RequestProposal, ProposalActions, ModChannels, DecideProposal],
})
export class StewardModule {}
