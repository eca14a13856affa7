import { Module } from '@nestjs/common';
import { StreamSpecs } from '@dirigent/contracts';
import type { ServiceDefinition } from '@dirigent/service-kit';
import { DiscordIngestConfigSchema } from './config';
import { CommandExecutor } from './command-executor';
import { DiscordConnection } from './discord-connection';
import { DiscordIngestRunner } from './discord-ingest.runner';
import { DiscordRpc } from './discord-rpc';
import { GatewayIngest } from './gateway-ingest';
import { SlashCommandHandler } from './slash-command-handler';

export { DiscordIngestConfigSchema } from './config';

/** The only code that knows Discord: gateway in, commands out, queries, slash commands. */
@Module({
  providers: [
    DiscordConnection,
    GatewayIngest,
    CommandExecutor,
    DiscordRpc,
    SlashCommandHandler,
    DiscordIngestRunner,
  ],
  exports: [DiscordIngestRunner, DiscordConnection, GatewayIngest],
})
export class DiscordIngestModule {}

export const DiscordIngestService: ServiceDefinition<typeof DiscordIngestConfigSchema> = {
  name: 'discord-ingest',
  portEnv: 'DISCORD_INGEST_PORT',
  defaultPort: 3001,
  configSchema: DiscordIngestConfigSchema,
  streams: [StreamSpecs.discordEvents, StreamSpecs.discordCommands, StreamSpecs.deadLetter],
  module: () => DiscordIngestModule,
};
