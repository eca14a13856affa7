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

/** How often, and how far apart, a start asks the ingest for the guilds before giving up. */
const CATCH_UP_TRIES = 30;
const CATCH_UP_STEP_MS = 2000;

/**
 * Feeds the proposal read model while the router runs and, once at start, makes sure every
 * guild the ingest knows has its mod channel (a `guild.joined` published before this router's
 * consumer first existed is not delivered to it).
 */
@Injectable()
class StewardLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('router:steward');
  private runner?: Pick<ProjectionRunner, 'stop'>;
  private stopped = false;

  constructor(
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
    private readonly discord: StewardDiscord,
    private readonly modChannels: ModChannels,
  ) {}

  private async catchUp() {
    for (let i = 0; i < CATCH_UP_TRIES && !this.stopped; i++) {
      const guilds = await this.discord.guildIds().catch(() => undefined);
      if (guilds) {
        for (const g of guilds) {
          if (this.stopped) return;
          await this.modChannels
            .ensure(g)
            .catch((e: Error) => this.log.warn({ guildId: g, err: e.message }, 'no mod channel'));
        }
        return;
      }
      await new Promise((r) => setTimeout(r, CATCH_UP_STEP_MS).unref());
    }
  }

  async onApplicationBootstrap() {
    void this.catchUp();
    this.runner = await runProjection(this.messaging, this.orm.em, proposalProjection, {
      log: {
        warn: (o, m) => this.log.warn({ ...o, msg: m }),
        error: (o, m) => this.log.error({ ...o, msg: m }),
      },
    });
  }

  async onApplicationShutdown() {
    this.stopped = true;
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
