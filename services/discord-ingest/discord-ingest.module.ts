import { Module } from '@nestjs/common';
import { StreamSpecs } from '@dirigent/contracts';
import type { ServiceDefinition } from '@dirigent/service-kit';
import { AgentWebhooks } from './adapters/agent-webhooks';
import { DiscordConnection } from './adapters/discord-connection';
import { DiscordGuilds } from './adapters/discord-guilds';
import { DiscordIngestRunner } from './adapters/discord-ingest.runner';
import { DiscordRest } from './adapters/discord-rest';
import { DiscordEventPublisher } from './adapters/event-publisher';
import { GatewayIngest } from './adapters/gateway-ingest';
import { IngestShards } from './adapters/ingest-shards';
import { SlashCommands } from './adapters/slash-commands';
import { AddReaction } from './application/add-reaction';
import { AssignRole } from './application/assign-role';
import { CreatePoll } from './application/create-poll';
import { CreateRole } from './application/create-role';
import { CreateThread } from './application/create-thread';
import { ListRoles } from './application/list-roles';
import { MemberPermissions } from './application/member-permissions';
import { PinMessage } from './application/pin-message';
import { SetChannelPermissions } from './application/set-channel-permissions';
import { EditChannel } from './application/edit-channel';
import { CreateChannel } from './application/create-channel';
import { DeleteMessage } from './application/delete-message';
import { ListChannelMembers } from './application/list-channel-members';
import { GetSelf } from './application/get-self';
import { ListGuilds } from './application/list-guilds';
import { SendMessage } from './application/send-message';
import { ShowTyping } from './application/show-typing';
import { DiscordIngestConfig } from './config';
import { DiscordActionHandlers } from './handlers/discord-actions.handlers';
import { DiscordCommandHandlers } from './handlers/discord-commands.handlers';
import { DiscordQueryHandlers } from './handlers/discord-queries.handlers';

export { DiscordIngestConfig } from './config';
export { DiscordIngestRunner } from './adapters/discord-ingest.runner';
export { DiscordConnection } from './adapters/discord-connection';
export { GatewayIngest } from './adapters/gateway-ingest';
export { IngestShards } from './adapters/ingest-shards';

const adapters = [
  DiscordConnection,
  DiscordRest,
  DiscordGuilds,
  AgentWebhooks,
  DiscordEventPublisher,
  GatewayIngest,
  SlashCommands,
  IngestShards,
  DiscordCommandHandlers,
  DiscordIngestRunner,
];
const useCases = [
  SendMessage,
  DeleteMessage,
  AddReaction,
  ShowTyping,
  ListChannelMembers,
  ListGuilds,
  GetSelf,
  CreateChannel,
  CreateThread,
  PinMessage,
  CreateRole,
  AssignRole,
  SetChannelPermissions,
  EditChannel,
  CreatePoll,
  MemberPermissions,
  ListRoles,
];

/**
 * The only code that knows Discord: gateway in, commands out, queries, slash commands.
 * The command consumer runs on the replica holding shard 0's lease (IngestShards); without
 * a token there is none: commands wait in their stream.
 */
@Module({})
export class DiscordIngestModule {
  static build() {
    return {
      module: DiscordIngestModule,
      controllers: [DiscordQueryHandlers, DiscordActionHandlers],
      providers: [...adapters, ...useCases],
      exports: [DiscordIngestRunner, DiscordConnection, GatewayIngest, IngestShards],
    };
  }
}

export const DiscordIngestService: ServiceDefinition<DiscordIngestConfig> = {
  name: 'discord-ingest',
  portEnv: 'DISCORD_INGEST_PORT',
  defaultPort: 3001,
  config: DiscordIngestConfig,
  streams: [StreamSpecs.discordEvents, StreamSpecs.discordCommands, StreamSpecs.deadLetter],
  module: () => DiscordIngestModule.build(),
};
