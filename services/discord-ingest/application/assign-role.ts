import { Injectable } from '@nestjs/common';
import type { AssignRoleRequest } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** Gives a member a role, or takes it (`remove`); either twice is a no-op on Discord. */
@Injectable()
export class AssignRole {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: AssignRoleRequest): Promise<Record<string, never>> {
    const guild = await this.discord.guild(r.guildId);
    const what = `${r.remove ? 'remove' : 'assign'} role ${r.roleId} for ${r.userId}`;
    await this.discord.call(what, () =>
      r.remove
        ? guild.members.removeRole({ user: r.userId, role: r.roleId })
        : guild.members.addRole({ user: r.userId, role: r.roleId }),
    );
    return {};
  }
}
