import { Injectable } from '@nestjs/common';
import type { PermissionFlagName, RolesQuery, RolesResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** The guild's roles, highest first, with their permission flag names. */
@Injectable()
export class ListRoles {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(q: RolesQuery): Promise<RolesResult> {
    const guild = await this.discord.guild(q.guildId);
    const roles = await this.discord.call(`roles of ${guild.id}`, () => guild.roles.fetch());
    return {
      roles: [...roles.values()]
        .sort((a, b) => b.position - a.position)
        .map((r) => ({
          roleId: r.id,
          name: r.name,
          position: r.position,
          permissions: r.permissions.toArray() as PermissionFlagName[],
          managed: r.managed,
        })),
    };
  }
}
