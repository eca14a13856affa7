import { Injectable } from '@nestjs/common';
import { ChannelType, Routes, type Guild } from 'discord.js';
import type { EditChannelRequest, EditChannelResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/**
 * Renames a channel and/or moves it under a category, found by name (case-insensitive) or
 * made. Over REST like `create`, so it works for a guild whose shard another replica holds.
 * Asking twice changes nothing more: the name and parent are set, not toggled.
 */
@Injectable()
export class EditChannel {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: EditChannelRequest): Promise<EditChannelResult> {
    const guild = await this.discord.guild(r.guildId);
    const channel = await this.discord.channel(guild, r.channelId);
    const body: Record<string, unknown> = {};
    if (r.name) body.name = r.name;
    if (r.categoryName) body.parent_id = await this.category(guild, r.categoryName);
    const client = this.discord.client();
    const edited = Object.keys(body).length
      ? ((await this.discord.call(`edit channel ${channel.id}`, () =>
          client.rest.patch(Routes.channel(channel.id), { body }),
        )) as { id: string; name: string; parent_id?: string | null })
      : { id: channel.id, name: channel.name, parent_id: channel.parentId };
    return { channelId: edited.id, name: edited.name, parentId: edited.parent_id ?? null };
  }

  private async category(guild: Guild, name: string): Promise<string> {
    const wanted = name.toLowerCase();
    const found = (await this.discord.channels(guild)).find(
      (c) => c.type === ChannelType.GuildCategory && c.name.toLowerCase() === wanted,
    );
    if (found) return found.id;
    return this.discord.create(`create category in ${guild.id}`, Routes.guildChannels(guild.id), {
      name,
      type: ChannelType.GuildCategory,
    });
  }
}
