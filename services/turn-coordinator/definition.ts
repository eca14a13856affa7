import { Module } from '@nestjs/common';
import { StreamSpecs } from '@dirigent/contracts';
import { withControlPage } from '@dirigent/control-web';
import { EventStore } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { Channels } from './src/channels';
import { CacheCoherence } from './src/coherence';
import {
  domainConfig,
  TurnCoordinatorConfigSchema,
  type TurnCoordinatorConfig,
} from './src/config';
import { Consumers } from './src/consumers';
import { DiscordPort } from './src/discord';
import { Identities } from './src/identities';
import { CoordinatorLifecycle } from './src/lifecycle';
import { turnCoordinatorEntities } from './src/projections/entities';
import { Reactor } from './src/reactor';
import { Rpc } from './src/rpc';
import { TURN_DOMAIN_CONFIG } from './src/tokens';

export { TurnCoordinatorConfigSchema } from './src/config';

/**
 * Turn-taking for Discord channels: the event-sourced channel aggregates and identity
 * registry behind check-turn, turn-complete and turn-granted (`Subjects.turn`;
 * ARCHITECTURE.md, "Turns").
 */
@Module({
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
    Channels,
    Identities,
    DiscordPort,
    Reactor,
    Consumers,
    Rpc,
    CacheCoherence,
    CoordinatorLifecycle,
  ],
})
export class TurnCoordinatorModule {}

/** The coordinator without its control page (tests that do not need the page). */
export const TurnCoordinatorBase: ServiceDefinition<typeof TurnCoordinatorConfigSchema> = {
  name: 'turn-coordinator',
  portEnv: 'TURN_COORDINATOR_PORT',
  defaultPort: 3002,
  configSchema: TurnCoordinatorConfigSchema,
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
};

/** The coordinator as deployed: with the control page at `/dirigent`. */
export const TurnCoordinatorService = withControlPage(TurnCoordinatorBase);
