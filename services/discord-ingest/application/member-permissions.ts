import { Injectable } from '@nestjs/common';
import type {
  PermissionFlagName,
  MemberPermissionsQuery,
  MemberPermissionsResult,
} from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/**
 * A member's effective permissions as flag names: in the guild (roles; owner and
 * Administrator have every flag), or in a channel with its overwrites applied (discord.js's
 * `GuildChannel.permissionsFor`); with how the guild shows them and their place in the role
 * hierarchy (what the steward's role rules compare).
 */
@Injectable()
export class MemberPermissions {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(q: MemberPermissionsQuery): Promise<MemberPermissionsResult> {
    const guild = await this.discord.guild(q.guildId);
    const member = await this.discord.member(guild, q.userId);
    const bits = q.channelId
      ? (await this.discord.channel(guild, q.channelId)).permissionsFor(member)
      : member.permissions;
    return {
      permissions: bits.toArray() as PermissionFlagName[],
      displayName: member.displayName,
      highestRolePosition: member.roles.highest?.position ?? 0,
      owner: guild.ownerId === member.id,
    };
  }
}
