import { PermissionFlagsBits, type Channel } from 'discord.js';
import { audienceKeyOf, type AudienceFacts } from '../domain/events';

/**
 * A channel's audience as Discord decides it: public when the guild's `@everyone` may view
 * it after its overwrites, private otherwise; a thread has its parent's. Null when it cannot
 * be told (a direct message, a thread whose parent is not cached).
 */
export function audienceOf(channel: Channel | null | undefined): AudienceFacts | null {
  if (!channel || channel.isDMBased()) return null;
  const thread = channel.isThread();
  const base = thread ? channel.parent : channel;
  if (!base || !('permissionOverwrites' in base)) return null;
  const everyone = base.guild.roles.cache.get(base.guild.id);
  if (!everyone) return null;
  const canView = base.permissionsFor(everyone).has(PermissionFlagsBits.ViewChannel);
  const audience = canView ? 'public' : 'private';
  const overwrites = [...base.permissionOverwrites.cache.values()].map((o) => ({
    id: o.id,
    type: o.type,
    allow: o.allow.bitfield.toString(),
    deny: o.deny.bitfield.toString(),
  }));
  return {
    audience,
    audienceKey: audienceKeyOf(audience, overwrites),
    parentChannelId: thread ? base.id : null,
  };
}
