import { Injectable } from '@nestjs/common';
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import type { GuildsQuery, GuildsResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** The guilds the bot is in (from the gateway's cache) with their text channels. */
@Injectable()
export class ListGuilds {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(q: GuildsQuery): Promise<GuildsResult> {
    const client = this.discord.client();
    const guilds = q.guildId
      ? [await this.discord.guild(q.guildId)]
      : [...client.guilds.cache.values()];
    return {
      guilds: guilds.map((g) => ({
        guildId: g.id,
        name: g.name,
        channels: [...g.channels.cache.values()]
          .filter((c) => c.type === ChannelType.GuildText)
          .sort((a, b) => ('position' in a && 'position' in b ? a.position - b.position : 0))
          .map((c) => ({
            channelId: c.id,
            name: c.name,
            private: !c.permissionsFor(g.roles.everyone).has(PermissionFlagsBits.ViewChannel),
          })),
      })),
    };
  }
}
