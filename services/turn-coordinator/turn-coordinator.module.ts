import { Logger, Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Durables, StreamSpecs } from '@dirigent/contracts';
import { ChannelReadModel, withControlPage } from '@dirigent/control-web';
import { EventStore } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { CacheCoherence } from './adapters/cache-coherence';
import { openChannelSnapshots } from './adapters/channel-snapshots';
import { NatsDiscord } from './adapters/discord.nats';
import { ChannelInbox, channelInputLimits } from './application/channel-inbox';
import { ChannelSettings } from './application/channel-settings';
import { ChannelTimerFired } from './application/channel-timer-fired';
import { Channels } from './application/channels';
import { CheckTurn } from './application/check-turn';
import { CompleteTurn } from './application/complete-turn';
import { CreateChannel } from './application/create-channel';
import { Discussions } from './application/discussions';
import { Identities } from './application/identities';
import { IdentityAdmin } from './application/identity-admin';
import { SlashCommands } from './application/slash-commands';
import { MemberChanged } from './application/member-changed';
import { Members } from './application/members';
import { ModeratorSelf, ObserveMessage } from './application/observe-message';
import { DiscordPort } from './application/ports';
import { ReactToCommit, SERVICE_NAME } from './application/react-to-commit';
import { RegisterAgent } from './application/register-agent';
import { CHANNEL_SNAPSHOTS, TURN_DOMAIN_CONFIG } from './application/tokens';
import { domainConfig, TurnCoordinatorConfig } from './config';
import { AdminHandler } from './handlers/admin.handler';
import { SlashHandler } from './handlers/slash.handler';
import { ChannelCommitsHandler } from './handlers/channel-commits.handler';
import { ChannelInputsHandler } from './handlers/channel-inputs.handler';
import { RelayHandler } from './handlers/relay.handler';
import { ToolsHandler } from './handlers/tools.handler';
import { TurnHandler } from './handlers/turn.handler';
import { ForwardedCheckTurn } from './partitions/forwarded-check-turn';
import { PartitionedConsumers, PartitionOwnership } from './partitions/partitioned-consumers';
import { turnCoordinatorEntities } from './adapters/postgres/entities';
import { CoordinatorLifecycle } from './turn-coordinator.lifecycle';

export { TurnCoordinatorConfig } from './config';

const providers: Provider[] = [
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
  PartitionOwnership,
  {
    provide: DurableTimers,
    inject: [Messaging, PartitionOwnership],
    // A partitioned replica fires only the timers of the channels it serves.
    useFactory: (messaging: Messaging, ownership: PartitionOwnership) =>
      DurableTimers.open(messaging, SERVICE_NAME, {
        fires: ({ data }) => ownership.ownsChannel((data as { channelId?: unknown }).channelId),
      }),
  },
  {
    provide: CHANNEL_SNAPSHOTS,
    inject: [Messaging],
    useFactory: (messaging: Messaging) => {
      const log = new Logger('snapshots');
      return openChannelSnapshots(messaging, {
        onError: (e, subject) => log.warn({ subject, err: e.message, msg: 'snapshot failed' }),
      });
    },
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
  SlashCommands,
  CacheCoherence,
  CoordinatorLifecycle,
];

/** The channel consumers: durable `@EventPattern`s in one replica, leased partitions in several. */
const channelConsumers: Type[] = [ChannelCommitsHandler, ChannelInputsHandler];
const requestHandlers: Type[] = [
  TurnHandler,
  AdminHandler,
  SlashHandler,
  ToolsHandler,
  RelayHandler,
];

/**
 * Turn-taking for Discord channels: the event-sourced channel aggregates and identity
 * registry behind check-turn, turn-complete and turn-granted (`Subjects.turn`;
 * docs/architecture.md, "Turns (coordinator)").
 */
@Module({
  // The reactor first: on a restart, effects of already committed events go out before new
  // inputs are decided.
  controllers: [...channelConsumers, ...requestHandlers],
  providers,
})
export class TurnCoordinatorModule {}

/**
 * The coordinator as one of several replicas (DIRIGENT_COORDINATOR_PARTITIONS > 0): requests
 * are answered by any replica, channel inputs and effects by the replica holding the lease on
 * the channel's partition (`partitions/`).
 */
@Module({})
export class PartitionedTurnCoordinatorModule {}

/** The module for `config`: single-replica durables, or partitions leased among replicas. */
export function turnCoordinatorModule(config: TurnCoordinatorConfig): Type | DynamicModule {
  if (config.DIRIGENT_COORDINATOR_PARTITIONS === 0) return TurnCoordinatorModule;
  return {
    module: PartitionedTurnCoordinatorModule,
    controllers: requestHandlers,
    providers: [
      ...providers.filter((p) => p !== CheckTurn),
      ...channelConsumers,
      PartitionedConsumers,
      // check-turn goes to the replica serving the channel.
      ForwardedCheckTurn,
      { provide: CheckTurn, useExisting: ForwardedCheckTurn },
    ],
  };
}

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
  module: turnCoordinatorModule,
  consumers: (config) => {
    const n = config.DIRIGENT_COORDINATOR_CONCURRENCY;
    const inputs = channelInputLimits(n);
    return {
      [Durables.coordinatorDiscordEvents]: inputs,
      [Durables.coordinatorTurnComplete]: inputs,
      [Durables.coordinatorTimers]: inputs,
      [Durables.coordinatorReactor]: { concurrency: n, maxAckPending: n * 4 },
    };
  },
};

/** The coordinator as deployed: with the control page at `/dirigent`. */
export const TurnCoordinatorService = withControlPage(TurnCoordinatorBase);
