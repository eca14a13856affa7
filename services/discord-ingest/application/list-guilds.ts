import { Injectable } from '@nestjs/common';
import { ChannelType, PermissionFlagsBits, type Guild } from 'discord.js';
import type { GuildsQuery, GuildsResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/**
 * The guilds the bot is in with their text channels: every guild, whichever replica's shards
 * hold it (those this replica holds from the gateway's cache, the others over REST).
 */
@Injectable()
export class ListGuilds {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(q: GuildsQuery): Promise<GuildsResult> {
    const ids = q.guildId ? [q.guildId] : await this.discord.guildIds();
    const guilds = await Promise.all(ids.map((id) => this.discord.guild(id)));
    return { guilds: await Promise.all(guilds.map((g) => this.describe(g))) };
  }

  private async describe(g: Guild): Promise<GuildsResult['guilds'][number]> {
    const channels = await this.discord.channels(g);
    return {
      guildId: g.id,
      name: g.name,
      channels: channels
        .filter((c) => c.type === ChannelType.GuildText)
        .sort((a, b) => ('position' in a && 'position' in b ? a.position - b.position : 0))
        .map((c) => ({
          channelId: c.id,
          name: c.name,
          private: !c.permissionsFor(g.roles.everyone).has(PermissionFlagsBits.ViewChannel),
        })),
    };
  }
}
