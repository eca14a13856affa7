import { HttpError, notFound } from './http-error';
import type { FakeChannel, FakeMessage, FakeRole } from './model';
import { Permission, type Overwrite } from './permissions';
import { channelJson, memberJson, roleJson } from './serialize';
import type { FakeStore } from './store';

const missingPermissions = () => new HttpError(403, 50013, 'Missing Permissions');

/**
 * What the bot does to a guild's shape over REST — roles, member roles, channel overwrites,
 * pins — and the gateway dispatches it causes (GUILD_ROLE_CREATE/UPDATE, GUILD_MEMBER_UPDATE,
 * CHANNEL_UPDATE, CHANNEL_PINS_UPDATE). Each needs the bot to hold the permission Discord
 * asks for (403 Missing Permissions otherwise).
 */
export class GuildAdmin {
  constructor(private readonly store: FakeStore) {}

  /** The bot's permissions in the guild, or in a channel when given. */
  requireBot(guildId: string, permission: bigint, channel?: FakeChannel): void {
    const s = this.store;
    const target = channel ?? {
      id: '0',
      guildId,
      name: '',
      type: 0,
      position: 0,
      parentId: null,
      topic: null,
      overwrites: [],
      lastMessageId: null,
    };
    const perms = s.permissionsOf(guildId, s.bot.id, target);
    if ((perms & permission) !== permission) throw missingPermissions();
  }

  createRole(
    guildId: string,
    opts: { name: string; color?: number; mentionable?: boolean; permissions?: bigint },
  ): FakeRole {
    const g = this.store.guild(guildId);
    this.requireBot(guildId, Permission.ManageRoles);
    const role: FakeRole = {
      id: this.store.ids.next(),
      name: opts.name,
      permissions: opts.permissions ?? 0n,
      position: g.roles.size,
      color: opts.color ?? 0,
      mentionable: opts.mentionable ?? false,
    };
    g.roles.set(role.id, role);
    this.store.gateway.dispatch('GUILD_ROLE_CREATE', { guild_id: guildId, role: roleJson(role) });
    return role;
  }

  /** Edits a role (GUILD_ROLE_UPDATE); `asBot` checks the bot may (the REST route). */
  updateRole(
    guildId: string,
    roleId: string,
    change: { name?: string; color?: number; mentionable?: boolean; permissions?: bigint },
    opts: { asBot?: boolean } = {},
  ): FakeRole {
    const role = this.role(guildId, roleId);
    if (opts.asBot) this.requireBot(guildId, Permission.ManageRoles);
    if (change.name !== undefined) role.name = change.name;
    if (change.color !== undefined) role.color = change.color;
    if (change.mentionable !== undefined) role.mentionable = change.mentionable;
    if (change.permissions !== undefined) role.permissions = change.permissions;
    this.store.gateway.dispatch('GUILD_ROLE_UPDATE', { guild_id: guildId, role: roleJson(role) });
    return role;
  }

  role(guildId: string, roleId: string): FakeRole {
    const role = this.store.guild(guildId).roles.get(roleId);
    if (!role) throw notFound('Role', 10011);
    return role;
  }

  /** Gives or takes a member's role (GUILD_MEMBER_UPDATE when it changed anything). */
  setMemberRole(guildId: string, userId: string, roleId: string, has: boolean): void {
    const g = this.store.guild(guildId);
    const member = g.members.get(userId);
    if (!member) throw notFound('Member', 10007);
    this.role(guildId, roleId);
    if (roleId === guildId) throw new HttpError(400, 50028, 'Invalid Role');
    this.requireBot(guildId, Permission.ManageRoles);
    const had = member.roleIds.includes(roleId);
    if (had === has) return;
    member.roleIds = has ? [...member.roleIds, roleId] : member.roleIds.filter((r) => r !== roleId);
    this.store.gateway.dispatch('GUILD_MEMBER_UPDATE', {
      ...memberJson(member, this.store.user(userId)),
      guild_id: guildId,
    });
  }

  /** Replaces one overwrite of a channel (CHANNEL_UPDATE). */
  setOverwrite(channelId: string, overwrite: Overwrite): FakeChannel {
    const c = this.store.channel(channelId);
    this.requireBot(c.guildId, Permission.ManageRoles, c);
    const rest = c.overwrites.filter((o) => o.id !== overwrite.id);
    return this.store.setOverwrites(channelId, [...rest, { ...overwrite }]);
  }

  /** Renames a channel or moves it under a category (CHANNEL_UPDATE); needs Manage Channels. */
  editChannel(channelId: string, change: { name?: string; parentId?: string | null }): FakeChannel {
    const c = this.store.channel(channelId);
    this.requireBot(c.guildId, Permission.ManageChannels, c);
    if (change.name !== undefined) {
      if (!change.name) throw new HttpError(400, 50035, 'Invalid Form Body: name');
      c.name = change.name;
    }
    if (change.parentId !== undefined) {
      const parent = change.parentId ? this.store.channel(change.parentId) : undefined;
      if (parent && (parent.type !== 4 || parent.guildId !== c.guildId))
        throw new HttpError(400, 50035, 'Invalid Form Body: parent_id');
      c.parentId = parent?.id ?? null;
    }
    this.store.gateway.dispatch('CHANNEL_UPDATE', channelJson(c));
    return c;
  }

  deleteOverwrite(channelId: string, id: string): FakeChannel {
    const c = this.store.channel(channelId);
    this.requireBot(c.guildId, Permission.ManageRoles, c);
    return this.store.setOverwrites(
      channelId,
      c.overwrites.filter((o) => o.id !== id),
    );
  }

  /** Pins or unpins (CHANNEL_PINS_UPDATE and MESSAGE_UPDATE when it changed anything). */
  setPinned(channelId: string, messageId: string, pinned: boolean): FakeMessage {
    const c = this.store.channel(channelId);
    const m = this.store.message(channelId, messageId);
    this.requireBot(c.guildId, Permission.ManageMessages, c);
    if ((m.pinned ?? false) === pinned) return m;
    const pinnedCount = this.store.channelMessages(channelId).filter((x) => x.pinned).length;
    if (pinned && pinnedCount >= 50)
      throw new HttpError(400, 30003, 'Maximum number of pins reached (50)');
    m.pinned = pinned;
    c.lastPinAt = pinned ? new Date().toISOString() : (c.lastPinAt ?? null);
    this.store.gateway.dispatch('MESSAGE_UPDATE', this.store.messageOut(m));
    this.store.emit('messageUpdated', m);
    this.store.gateway.dispatch('CHANNEL_PINS_UPDATE', {
      guild_id: c.guildId,
      channel_id: c.id,
      last_pin_timestamp: c.lastPinAt ?? null,
    });
    return m;
  }

  pinnedMessages(channelId: string): FakeMessage[] {
    return this.store.channelMessages(channelId).filter((m) => m.pinned);
  }
}
