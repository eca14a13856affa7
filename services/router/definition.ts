import { Module } from '@nestjs/common';
import { baseConfigSchema, portSchema, type ServiceDefinition } from '@dirigent/service-kit';

export const RouterConfigSchema = baseConfigSchema.extend({ ROUTER_PORT: portSchema(3003) });

/** Boots, connects to NATS and Postgres and reports health; its capability lands in a later issue. */
@Module({})
export class RouterModule {}

export const RouterService: ServiceDefinition<typeof RouterConfigSchema> = {
  name: 'router',
  portEnv: 'ROUTER_PORT',
  defaultPort: 3003,
  configSchema: RouterConfigSchema,
  streams: [],
  module: () => RouterModule,
};
