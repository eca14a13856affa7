import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  Subjects,
  type ChannelMembersResult,
  type CreateChannelResult,
  type MessagePurpose,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { AgentRef } from '@dirigent/turn-domain';
import type { TurnCoordinatorConfig } from './config';
import { Identities } from './identities';

/** What the coordinator asks of the Discord ingest: member lists, channel creation, sends. */
@Injectable()
export class DiscordPort {
  constructor(
    private readonly messaging: Messaging,
    private readonly identities: Identities,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  /** Current members of a channel; throws a DomainError when the ingest cannot answer. */
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

  /** The registered agents among a channel's current members. */
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

  /** Sends a moderator message; `id` makes a re-send of the same effect a no-op. */
  async send(
    id: string,
    msg: {
      guildId: string;
      channelId: string;
      content: string;
      purpose: MessagePurpose;
      deleteAfterSend?: boolean;
    },
  ): Promise<void> {
    await this.messaging.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', msg, { id });
  }
}
