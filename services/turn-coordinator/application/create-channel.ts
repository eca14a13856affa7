import { Injectable } from '@nestjs/common';
import type { AgentRef } from '@dirigent/turn-domain';
import { requireAgent } from './agent-tools';
import { Channels } from './channels';
import { Identities } from './identities';
import { DiscordPort } from './ports';

/** The create-chat/report/work-channel tools: a private channel in that mode. */
@Injectable()
export class CreateChannel {
  constructor(
    private readonly channels: Channels,
    private readonly identities: Identities,
    private readonly discord: DiscordPort,
  ) {}

  async run(
    callerAgentId: string,
    guildId: string,
    name: string,
    members: string[] | undefined,
    mode: 'chat' | 'report' | 'work',
  ): Promise<{ channelId: string }> {
    const caller = await requireAgent(this.identities, callerAgentId);
    const memberIds = [caller.discordUserId, ...(members ?? [])];
    const { channelId } = await this.discord.createChannel(guildId, name, memberIds);
    const agents: AgentRef[] = await this.identities.resolve(memberIds);
    await this.channels.execute(channelId, {
      type: 'CreateChannel',
      data: { guildId, mode, agents, createdByAgentId: callerAgentId },
    });
    return { channelId };
  }
}
