import {
  Global,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { EventStore, runProjection, type ProjectionRunner } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../config';
import { Clock } from '../application/ports';
import { NatsStewardDiscord } from './adapters/discord.client';
import { ProposalRow } from './adapters/postgres/proposal.entity';
import { proposalProjection } from './adapters/postgres/proposal.projection';
import { PostgresProposals } from './adapters/postgres/proposal.read-model';
import { JetStreamStewardEvents } from './adapters/steward-events';
import { DecideProposal } from './application/decide-proposal';
import { ModChannels } from './application/mod-channels';
import { ProposalActions } from './application/proposal-actions';
import { ProposalEffects } from './application/proposal-effects';
import { ProposalService } from './application/proposals';
import { ProposalReadModel, StewardDiscord, StewardEvents } from './application/ports';
import { StewardHandler } from './handlers/steward.handler';

export const stewardEntities = [ProposalRow];

/** Feeds the proposal read model while the router runs. */
@Injectable()
class StewardLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('router:steward');
  private runner?: Pick<ProjectionRunner, 'stop'>;

  constructor(
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
  ) {}

  async onApplicationBootstrap() {
    this.runner = await runProjection(this.messaging, this.orm.em, proposalProjection, {
      log: {
        warn: (o, m) => this.log.warn({ ...o, msg: m }),
        error: (o, m) => this.log.error({ ...o, msg: m }),
      },
    });
  }

  async onApplicationShutdown() {
    await this.runner?.stop();
  }
}

/**
 * The steward (docs/architecture.md, "Steward"): each guild's mod channel, proposals as
 * event-sourced aggregates decided by ✅/❌ of ManageGuild members, executed once, expired by
 * durable timer. Global: the skill system proposes through {@link ProposalService} and
 * registers its `confirm`-class executions on {@link ProposalActions}.
 */
@Global()
@Module({
  controllers: [StewardHandler],
  providers: [
    { provide: EventStore, inject: [Messaging], useFactory: (m: Messaging) => new EventStore(m) },
    { provide: Clock, useValue: { now: () => Date.now() } },
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
    ProposalService,
    ModChannels,
    ProposalActions,
    ProposalEffects,
    DecideProposal,
    StewardLifecycle,
  ],
  exports: [ProposalService, ProposalActions, ModChannels, DecideProposal],
})
export class StewardModule {}
