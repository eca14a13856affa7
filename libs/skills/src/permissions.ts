import type { PermissionFlagName } from '@dirigent/contracts';
import { SKILL_BUNDLE } from './registry';
import type { Skill } from './types';

/**
 * What the bot does in every channel it conducts, whatever the skills: reads the channel and
 * its history (catch-up after a reconnect), posts (notices, markers, replies, in threads
 * too), reacts (react-only turns), and speaks for the built-in agents through webhooks.
 */
export const CONDUCTOR_PERMISSIONS: readonly PermissionFlagName[] = [
  'ViewChannel',
  'ReadMessageHistory',
  'SendMessages',
  'SendMessagesInThreads',
  'AddReactions',
  'ManageWebhooks',
];

/**
 * What the steward does itself: makes the private mod channel once per guild, posts each
 * proposal there and puts ✅ and ❌ under it.
 */
export const STEWARD_PERMISSIONS: readonly PermissionFlagName[] = [
  'ManageChannels',
  'ViewChannel',
  'SendMessages',
  'AddReactions',
];

/**
 * Every Discord permission the bot needs: the union of what the skills, the steward and the
 * conductor declare, sorted. The invite link asks for exactly these; a declaration of
 * Administrator is refused (no part of Dirigent needs it).
 *
 * @example
 * botPermissions(); // ['AddReactions', 'CreatePublicThreads', 'ManageChannels', …]
 */
export function botPermissions(skills: readonly Skill[] = SKILL_BUNDLE): PermissionFlagName[] {
  const all = new Set<PermissionFlagName>([
    ...CONDUCTOR_PERMISSIONS,
    ...STEWARD_PERMISSIONS,
    ...skills.flatMap((s) => s.discordPermissions),
  ]);
  if (all.has('Administrator')) throw new Error('no skill may ask for Administrator');
  return [...all].sort();
}
