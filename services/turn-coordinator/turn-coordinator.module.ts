import { Module } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Durables, StreamSpecs } from '@dirigent/contracts';
import { ChannelReadModel, withControlPage } from '@dirigent/control-web';
import { EventStore } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { CacheCoherence } from './adapters/cache-coherence';
import { NatsDiscord } from './adapters/discord.nats';
import { ChannelInbox } from './application/channel-inbox';
import { ChannelSettings } from './application/channel-settings';
import { ChannelTimerFired } from './application/channel-timer-fired';
import { Channels } from './application/channels';
import { CheckTurn } from './application/check-turn';
import { CompleteTurn } from './application/complete-turn';
import { CreateChannel } from './application/create-channel';
import { Discussions } from './application/discussions';
import { Identities } from './application/identities';
import { IdentityAdmin } from './application/identity-admin';
import { MemberChanged } from './application/member-changed';
import { Members } from './application/members';
import { ModeratorSelf, ObserveMessage } from './application/observe-message';
import { DiscordPort } from './application/ports';
import { ReactToCommit, SERVICE_NAME } from './application/react-to-commit';
import { RegisterAgent } from './application/register-agent';
import { TURN_DOMAIN_CONFIG } from './application/tokens';
import { domainConfig, TurnCoordinatorConfig } from './config';
import { AdminHandler } from './handlers/admin.handler';
import { ChannelCommitsHandler } from './handlers/channel-commits.handler';
import { ChannelInputsHandler } from './handlers/channel-inputs.handler';
import { ToolsHandler } from './handlers/tools.handler';
import { TurnHandler } from './handlers/turn.handler';
import { turnCoordinatorEntities } from './adapters/projections/entities';
import { CoordinatorLifecycle } from './turn-coordinator.lifecycle';

export { TurnCoordinatorConfig } from './config';

/**
 * Turn-taking for Discord channels: the event-sourced channel aggregates and identity
 * registry behind check-turn, turn-complete and turn-granted (`Subjects.turn`;
 * ARCHITECTURE.md, "Turns").
 */
@Module({
  // The reactor first: on a restart, effects of already committed events go out before new
  // inputs are decided.
  controllers: [
    ChannelCommitsHandler,
    ChannelInputsHandler,
    TurnHandler,
    AdminHandler,
    ToolsHandler,
  ],
  providers: [
    {
      provide: EventStore,
      inject: [Messaging],
      useFactory: (messaging: Messaging) => new EventStore(messaging),
    },
    {
      provide: TURN_DOMAIN_CONFIG,
      inject: [SERVICE_CONFIG],
      useFactory: (config: TurnCoordinatorConfig) => domainConfig(config),
    },
    {
      provide: DurableTimers,
      inject: [Messaging],
      useFactory: (messaging: Messaging) => DurableTimers.open(messaging, SERVICE_NAME),
    },
    { provide: DiscordPort, useClass: NatsDiscord },
    {
      provide: ChannelReadModel,
      inject: [MikroORM, EventStore],
      useFactory: (orm: MikroORM, store: EventStore) => new ChannelReadModel(orm.em, store),
    },
    Channels,
    Identities,
    ChannelInbox,
    Members,
    ModeratorSelf,
    ObserveMessage,
    MemberChanged,
    CompleteTurn,
    ChannelTimerFired,
    ReactToCommit,
    CheckTurn,
    IdentityAdmin,
    ChannelSettings,
    CreateChannel,
    Discussions,
    RegisterAgent,
    CacheCoherence,
    CoordinatorLifecycle,
  ],
})
export class TurnCoordinatorModule {}

/** The coordinator without its control page (tests that do not need the page). */
export const TurnCoordinatorBase: ServiceDefinition<TurnCoordinatorConfig> = {
  name: 'turn-coordinator',
  portEnv: 'TURN_COORDINATOR_PORT',
  defaultPort: 3002,
  config: TurnCoordinatorConfig,
  streams: [
    StreamSpecs.discordEvents,
    StreamSpecs.discordCommands,
    StreamSpecs.turnComplete,
    StreamSpecs.turnGranted,
    StreamSpecs.eventStore,
    StreamSpecs.timerFired,
    StreamSpecs.deadLetter,
  ],
  entities: turnCoordinatorEntities,
  module: () => TurnCoordinatorModule,
  consumers: (config) => {
    const n = config.DIRIGENT_COORDINATOR_CONCURRENCY;
    const parallel = { concurrency: n, maxAckPending: n * 4 };
    return {
      [Durables.coordinatorDiscordEvents]: parallel,
      [Durables.coordinatorTurnComplete]: parallel,
      [Durables.coordinatorTimers]: parallel,
      [Durables.coordinatorReactor]: parallel,
    };
  },
};

/** The coordinator as deployed: with the control page at `/dirigent`. */
export const TurnCoordinatorService = withControlPage(TurnCoordinatorBase);
