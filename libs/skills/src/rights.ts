import type { PermissionFlagName, RoleInfo } from '@dirigent/contracts';

/**
 * Permissions no role Dit creates, gives or takes may carry: the ones that would let a member
 * moderate, reshape the server or hand out more rights.
 */
export const ROLE_UNSAFE_PERMISSIONS: readonly PermissionFlagName[] = [
  'Administrator',
  'ManageGuild',
  'ManageRoles',
  'ManageChannels',
  'ManageMessages',
  'BanMembers',
  'KickMembers',
  'ModerateMembers',
  'MentionEveryone',
  'ManageWebhooks',
];

/** What the ingest says of a member (`member-permissions`), in a channel or the guild. */
export interface MemberRights {
  permissions: string[];
  displayName?: string;
  /** The position of the member's highest role (0: only `@everyone`). */
  highestRolePosition: number;
  owner: boolean;
}

/** The words a flag name is shown with (`ManageGuild` → `Manage Guild`). */
export const permissionWords = (p: string) => p.replace(/([a-z])([A-Z])/g, '$1 $2');

/** Whether the member holds `permission` there (Discord's rule: no view, no right). */
export function holds(rights: MemberRights, permission: string): boolean {
  const p = rights.permissions;
  if (rights.owner || p.includes('Administrator')) return true;
  return p.includes(permission) && p.includes('ViewChannel');
}

/** How a call asked by a member goes: run as asked, handed to the moderators, or refused. */
export type AskerVerdict =
  | { kind: 'act' }
  | { kind: 'propose' }
  | { kind: 'refuse'; reason: string };

/**
 * The asker's rule (docs/architecture.md, "Acting for a member"): a skill that changes
 * Discord runs as asked only when the member holds its permission in the target channel.
 * A member who cannot see the target (or is not in the server) is refused; one who sees it
 * but lacks the right gets a proposal the moderators may approve.
 *
 * @example
 * judgeAsker('ManageMessages', { permissions: ['ViewChannel'], highestRolePosition: 0, owner: false })
 * // → { kind: 'propose' }
 */
export function judgeAsker(permission: string, rights: MemberRights | undefined): AskerVerdict {
  if (!rights) return { kind: 'refuse', reason: 'only members of this server can ask me for that' };
  if (holds(rights, permission)) return { kind: 'act' };
  if (!holds(rights, 'ViewChannel'))
    return {
      kind: 'refuse',
      reason: "you can't see that channel, so I won't act there on your behalf",
    };
  return { kind: 'propose' };
}

/**
 * Why a role may not be created, given or taken by Dit (undefined when it may): it carries a
 * permission of {@link ROLE_UNSAFE_PERMISSIONS}, it is `@everyone` or an integration's, or it
 * sits at or above the bot's highest role (or the approver's, when one is named).
 *
 * @example
 * roleRefusal({ roleId: '1', name: 'admin', position: 5, permissions: ['Administrator'], managed: false }, { position: 9 })
 * // → 'the role "admin" carries Administrator: …'
 */
export function roleRefusal(
  role: RoleInfo | undefined,
  above: { position: number; owner?: boolean; who?: string },
): string | undefined {
  if (!role) return undefined;
  if (role.position === 0 || role.managed)
    return `the role "${role.name}" is not one anybody hands out`;
  const unsafe = role.permissions.filter((p) => ROLE_UNSAFE_PERMISSIONS.includes(p));
  if (unsafe.length)
    return `the role "${role.name}" carries ${unsafe.map(permissionWords).join(', ')}: I never hand out moderator rights; a moderator can do it by hand`;
  if (!above.owner && role.position >= above.position)
    return `the role "${role.name}" is at or above ${above.who ?? 'my own highest role'}`;
  return undefined;
}
