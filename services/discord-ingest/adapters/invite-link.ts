import { PermissionsBitField, type PermissionsString } from 'discord.js';
import type { PermissionFlagName } from '@dirigent/contracts';

/**
 * The link that adds the bot to a server: scopes `bot applications.commands` and exactly the
 * permissions named, as Discord's permission integer.
 *
 * @example
 * inviteLink('1234567890', ['ViewChannel', 'SendMessages']);
 * // 'https://discord.com/oauth2/authorize?client_id=1234567890&scope=bot+applications.commands&permissions=3072'
 */
export function inviteLink(
  applicationId: string,
  permissions: readonly PermissionFlagName[],
): string {
  const bits = new PermissionsBitField(permissions as PermissionsString[]).bitfield;
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: 'bot applications.commands',
    permissions: bits.toString(),
  });
  return `https://discord.com/oauth2/authorize?${query.toString()}`;
}

/**
 * The application's id as a bot token carries it (its first part is the bot user's id in
 * base64, which is the application's for every bot made since 2016); null when the token
 * does not have that shape.
 */
export function applicationIdOf(token: string): string | null {
  const first = token.split('.')[0] ?? '';
  const id = Buffer.from(first, 'base64').toString('utf8');
  return /^\d{17,20}$/.test(id) ? id : null;
}
