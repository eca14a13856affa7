import { Injectable, Logger } from '@nestjs/common';
import { PermissionFlagsBits } from 'discord.js';
import type { ChannelMembersQuery, ChannelMembersResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** Members who can see the channel: from the member cache, listed over REST on a miss. */
@Injectable()
export class ListChannelMembers {
  private readonly log = new Logger('list-channel-members');

  constructor(private readonly discord: DiscordGuilds) {}

  async run(q: ChannelMembersQuery): Promise<ChannelMembersResult> {
    const guild = await this.discord.guild(q.guildId);
    const channel = await this.discord.channel(guild, q.channelId);
    // A guild outside this replica's shards has no member cache worth trusting.
    if (!this.discord.live(guild) || guild.members.cache.size < guild.memberCount) {
      this.log.debug(`member cache miss in ${guild.id}; listing over REST`);
      await guild.members.list({ limit: 1000, cache: true });
    }
    const members = guild.members.cache
      .filter((m) => channel.permissionsFor(m).has(PermissionFlagsBits.ViewChannel))
      .map((m) => ({ userId: m.id, isBot: m.user.bot }));
    return { members };
  }
}
