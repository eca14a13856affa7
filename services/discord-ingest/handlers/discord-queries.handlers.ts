import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ChannelMembersQuery,
  CreateChannelRequest,
  GuildsQuery,
  Subjects,
} from '@dirigent/contracts';
import { CreateChannel } from '../application/create-channel';
import { GetSelf } from '../application/get-self';
import { ListChannelMembers } from '../application/list-channel-members';
import { ListGuilds } from '../application/list-guilds';

/** Discord queries and the create-channel RPC over NATS request/reply. */
@Controller()
export class DiscordQueryHandlers {
  constructor(
    private readonly members: ListChannelMembers,
    private readonly guilds: ListGuilds,
    private readonly channels: CreateChannel,
    private readonly self: GetSelf,
  ) {}

  @MessagePattern(Subjects.discord.queryChannelMembers)
  channelMembers(@Payload() q: ChannelMembersQuery) {
    return this.members.run(q);
  }

  @MessagePattern(Subjects.discord.queryGuilds)
  listGuilds(@Payload() q: GuildsQuery) {
    return this.guilds.run(q);
  }

  @MessagePattern(Subjects.discord.querySelf)
  whoAmI() {
    return this.self.run();
  }

  @MessagePattern(Subjects.discord.rpcCreateChannel)
  createChannel(@Payload() r: CreateChannelRequest) {
    return this.channels.run(r);
  }
}
