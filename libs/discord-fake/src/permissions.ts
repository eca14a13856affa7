/** The Discord permission bits the fake and its users care about. */
export const Permission = {
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  AddReactions: 1n << 6n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  ManageRoles: 1n << 28n,
  ManageWebhooks: 1n << 29n,
  UseApplicationCommands: 1n << 31n,
  CreatePublicThreads: 1n << 35n,
  SendPolls: 1n << 49n,
} as const;

export const EVERYONE_DEFAULT =
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.ReadMessageHistory |
  Permission.AddReactions |
  Permission.EmbedLinks |
  Permission.AttachFiles |
  Permission.UseApplicationCommands |
  Permission.CreatePublicThreads |
  Permission.SendPolls;

export const ALL_PERMISSIONS = (1n << 50n) - 1n;

export interface Overwrite {
  id: string;
  /** 0 = role, 1 = member */
  type: 0 | 1;
  allow: string;
  deny: string;
}

/**
 * Discord's permission algorithm for one member in one channel: base from roles, then the
 * @everyone overwrite, role overwrites, member overwrite.
 */
export function channelPermissions(opts: {
  guildId: string;
  ownerId: string;
  userId: string;
  memberRoleIds: string[];
  rolePermissions: Map<string, bigint>;
  overwrites: Overwrite[];
}): bigint {
  if (opts.userId === opts.ownerId) return ALL_PERMISSIONS;
  let base = opts.rolePermissions.get(opts.guildId) ?? 0n;
  for (const r of opts.memberRoleIds) base |= opts.rolePermissions.get(r) ?? 0n;
  if (base & Permission.Administrator) return ALL_PERMISSIONS;
  let perms = base;
  const everyone = opts.overwrites.find((o) => o.id === opts.guildId);
  if (everyone) perms = (perms & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of opts.overwrites) {
    if (o.type === 0 && opts.memberRoleIds.includes(o.id)) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
  }
  perms = (perms & ~deny) | allow;
  const member = opts.overwrites.find((o) => o.type === 1 && o.id === opts.userId);
  if (member) perms = (perms & ~BigInt(member.deny)) | BigInt(member.allow);
  return perms;
}
