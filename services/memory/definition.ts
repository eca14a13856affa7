import { Module } from '@nestjs/common';
import { baseConfigSchema, portSchema, type ServiceDefinition } from '@dirigent/service-kit';

export const MemoryConfigSchema = baseConfigSchema.extend({ MEMORY_PORT: portSchema(3004) });

/** Boots, connects to NATS and Postgres and reports health; its capability lands in a later issue. */
@Module({})
export class MemoryModule {}

export const MemoryService: ServiceDefinition<typeof MemoryConfigSchema> = {
  name: 'memory',
  portEnv: 'MEMORY_PORT',
  defaultPort: 3004,
  configSchema: MemoryConfigSchema,
  streams: [],
  module: () => MemoryModule,
};
