import { Module } from '@nestjs/common';
import { baseConfigSchema, portSchema, type ServiceDefinition } from '@dirigent/service-kit';

export const TurnCoordinatorConfigSchema = baseConfigSchema.extend({
  TURN_COORDINATOR_PORT: portSchema(3002),
});

/** Boots, connects to NATS and Postgres and reports health; its capability lands in a later issue. */
@Module({})
export class TurnCoordinatorModule {}

export const TurnCoordinatorService: ServiceDefinition<typeof TurnCoordinatorConfigSchema> = {
  name: 'turn-coordinator',
  portEnv: 'TURN_COORDINATOR_PORT',
  defaultPort: 3002,
  configSchema: TurnCoordinatorConfigSchema,
  streams: [],
  module: () => TurnCoordinatorModule,
};
