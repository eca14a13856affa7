import type { FakeDiscord } from '@dirigent/discord-fake';

const MANAGE_GUILD = 1n << 5n;

/** Gives a member a `managers` role holding Manage Server in the local Discord (one per guild). */
export function grantManageGuild(discord: FakeDiscord, guildId: string, userId: string): void {
  const g = discord.guild(guildId);
  const role =
    [...g.roles.values()].find((r) => r.name === 'managers') ??
    discord.admin.createRole(guildId, { name: 'managers', permissions: MANAGE_GUILD });
  discord.admin.setMemberRole(guildId, userId, role.id, true);
}
