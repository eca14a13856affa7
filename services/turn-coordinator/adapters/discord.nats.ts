import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  EnvelopeTypes,
  Subjects,
  type ChannelMembersResult,
  type CreateChannelResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { AgentRef } from '@dirigent/turn-domain';
import { Identities } from '../application/identities';
import { DiscordPort, type ModeratorMessage } from '../application/ports';
import type { TurnCoordinatorConfig } from '../config';

/** The Discord port over NATS: the ingest's members query and create-channel RPC, send commands. */
@Injectable()
export class NatsDiscord extends DiscordPort {
  constructor(
    private readonly messaging: Messaging,
    private readonly identities: Identities,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {
    super();
  }

  async members(guildId: string, channelId: string): Promise<ChannelMembersResult['members']> {
    const reply = await this.messaging.request<ChannelMembersResult>(
      Subjects.discord.queryChannelMembers,
      { guildId, channelId },
      this.config.DIRIGENT_DISCORD_RPC_TIMEOUT_MS,
    );
    if (!reply.ok) {
      throw new DomainError(reply.error.code, `channel-members: ${reply.error.message}`, {
        guildId,
        channelId,
      });
    }
    return reply.data.members;
  }

  async agentsIn(guildId: string, channelId: string): Promise<AgentRef[]> {
    const members = await this.members(guildId, channelId);
    return this.identities.resolve(members.map((m) => m.userId));
  }

  async createChannel(
    guildId: string,
    name: string,
    memberIds: string[],
  ): Promise<CreateChannelResult> {
    const reply = await this.messaging.request<CreateChannelResult>(
      Subjects.discord.rpcCreateChannel,
      { guildId, name, private: true, memberIds: [...new Set(memberIds)] },
      this.config.DIRIGENT_DISCORD_RPC_TIMEOUT_MS,
    );
    if (!reply.ok) {
      throw new DomainError(reply.error.code, `create-channel: ${reply.error.message}`, {
        guildId,
        name,
      });
    }
    return reply.data;
  }

  async send(id: string, msg: ModeratorMessage): Promise<void> {
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      msg,
      {
        id,
      },
    );
  }
}
