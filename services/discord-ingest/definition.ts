import { Module } from '@nestjs/common';
import { baseConfigSchema, portSchema, type ServiceDefinition } from '@dirigent/service-kit';

export const DiscordIngestConfigSchema = baseConfigSchema.extend({
  DISCORD_INGEST_PORT: portSchema(3001),
});

/** Boots, connects to NATS and Postgres and reports health; its capability lands in a later issue. */
@Module({})
export class DiscordIngestModule {}

export const DiscordIngestService: ServiceDefinition<typeof DiscordIngestConfigSchema> = {
  name: 'discord-ingest',
  portEnv: 'DISCORD_INGEST_PORT',
  defaultPort: 3001,
  configSchema: DiscordIngestConfigSchema,
  streams: [],
  module: () => DiscordIngestModule,
};
