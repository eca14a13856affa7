import { Injectable } from '@nestjs/common';
import { Routes } from 'discord.js';
import type { CreateRoleRequest, CreateRoleResult } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { DiscordGuilds } from '../adapters/discord-guilds';

/**
 * A role by name: an existing role of that name is answered (and brought to the asked
 * colour and mentionability), otherwise one is created. Requests for one guild run one at a
 * time, so two concurrent asks for a name make one role.
 */
@Injectable()
export class CreateRole {
  private readonly lanes = new KeyedQueue();

  constructor(private readonly discord: DiscordGuilds) {}

  run(r: CreateRoleRequest): Promise<CreateRoleResult> {
    return this.lanes.run(r.guildId, () => this.createOnce(r));
  }

  private async createOnce(r: CreateRoleRequest): Promise<CreateRoleResult> {
    const guild = await this.discord.guild(r.guildId);
    const roles = await this.discord.call(`roles of ${guild.id}`, () => guild.roles.fetch());
    const existing = roles.find((role) => role.name === r.name);
    if (existing) {
      const recolor = r.color !== undefined && existing.colors.primaryColor !== r.color;
      const remention = r.mentionable !== undefined && existing.mentionable !== r.mentionable;
      if (recolor || remention) {
        await this.discord.call(`edit role ${existing.id}`, () =>
          existing.edit({
            ...(recolor ? { colors: { primaryColor: r.color! } } : {}),
            ...(remention ? { mentionable: r.mentionable } : {}),
          }),
        );
      }
      return { roleId: existing.id };
    }
    const roleId = await this.discord.create(
      `create role in ${guild.id}`,
      Routes.guildRoles(guild.id),
      {
        name: r.name,
        colors: r.color !== undefined ? { primary_color: r.color } : undefined,
        mentionable: r.mentionable,
        permissions: '0',
      },
    );
    return { roleId };
  }
}
