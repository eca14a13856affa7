import { Injectable, Logger } from '@nestjs/common';
import { PermissionFlagsBits, type GuildBasedChannel } from 'discord.js';
import {
  DomainError,
  ErrorCodes,
  type ChannelMembersQuery,
  type ChannelMembersResult,
} from '@dirigent/contracts';
import { DiscordGuilds, asDomainError } from '../adapters/discord-guilds';

/** Members who can see the channel: from the member cache, listed over REST on a miss. */
@Injectable()
export class ListChannelMembers {
  private readonly log = new Logger('list-channel-members');

  constructor(private readonly discord: DiscordGuilds) {}

  async run(q: ChannelMembersQuery): Promise<ChannelMembersResult> {
    const guild = await this.discord.guild(q.guildId);
    let channel: GuildBasedChannel | null;
    try {
      channel = guild.channels.cache.get(q.channelId) ?? (await guild.channels.fetch(q.channelId));
    } catch (e) {
      throw asDomainError(e, `channel ${q.channelId}`);
    }
    if (!channel) throw new DomainError(ErrorCodes.NOT_FOUND, `channel ${q.channelId} not found`);
    if (guild.members.cache.size < guild.memberCount) {
      this.log.debug(`member cache miss in ${guild.id}; listing over REST`);
      await guild.members.list({ limit: 1000, cache: true });
    }
    const members = guild.members.cache
      .filter((m) => channel.permissionsFor(m).has(PermissionFlagsBits.ViewChannel))
      .map((m) => ({ userId: m.id, isBot: m.user.bot }));
    return { members };
  }
}
