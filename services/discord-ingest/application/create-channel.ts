import { Injectable } from '@nestjs/common';
import { ChannelType, PermissionFlagsBits, Routes, type Guild } from 'discord.js';
import type { CreateChannelRequest, CreateChannelResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';
import { privateChannelOverwrites } from '../domain/overwrites';

/**
 * A text channel; a private one is hidden from @everyone and open to the listed members, the
 * moderator and the roles that hold Manage Server (the steward's mod channel).
 */
@Injectable()
export class CreateChannel {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: CreateChannelRequest): Promise<CreateChannelResult> {
    const guild = await this.discord.guild(r.guildId);
    const overwrites = r.private
      ? privateChannelOverwrites({
          guildId: guild.id,
          memberIds: r.memberIds ?? [],
          staffRoleIds: await this.staffRoles(guild),
          moderatorId: this.discord.connection.moderatorId,
          botId: this.discord.client().user.id,
        })
      : [];
    const channelId = await this.discord.create(
      `create channel in ${guild.id}`,
      Routes.guildChannels(guild.id),
      {
        name: r.name,
        type: ChannelType.GuildText,
        permission_overwrites: overwrites.map((o) => ({
          id: o.id,
          type: o.type,
          allow: String(o.allow),
          deny: String(o.deny),
        })),
      },
    );
    return { channelId };
  }

  /** Roles (other than @everyone) holding Manage Server; Administrators see every channel. */
  private async staffRoles(guild: Guild): Promise<string[]> {
    const roles = await this.discord.call(`roles of ${guild.id}`, () => guild.roles.fetch());
    return roles
      .filter(
        (role) =>
          role.id !== guild.id &&
          role.permissions.has(PermissionFlagsBits.ManageGuild, false) &&
          !role.permissions.has(PermissionFlagsBits.Administrator, false),
      )
      .map((role) => role.id);
  }
}
