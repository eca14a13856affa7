import { EventEmitter } from 'node:events';
import { FakeGateway } from './gateway';
import { GuildAdmin } from './guild-admin';
import { HttpError, notFound } from './http-error';
import type {
  FakeChannel,
  FakeCommand,
  FakeGuild,
  FakeInteraction,
  FakeMember,
  FakeMessage,
  FakeUser,
  FakeWebhook,
} from './model';
import { EVERYONE_DEFAULT, Permission, channelPermissions, type Overwrite } from './permissions';
import { channelJson, guildJson, memberJson, messageJson, threadJson, userJson } from './serialize';
import { SnowflakeGenerator, snowflakeTime } from './snowflakes';

/**
 * The local Discord's world: guilds, roles, members, channels, messages, webhooks and
 * commands in memory, and the gateway dispatches that changing them causes.
 */
export abstract class FakeStore extends EventEmitter {
  readonly ids = new SnowflakeGenerator();
  readonly bot: FakeUser;
  readonly users = new Map<string, FakeUser>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage[]>();
  readonly webhooks = new Map<string, FakeWebhook>();
  readonly commands = new Map<string, FakeCommand>();
  readonly interactions = new Map<string, FakeInteraction>();
  readonly gateway: FakeGateway;
  /** The shard count `GET /gateway/bot` recommends. */
  recommendedShards = 1;
  /** Roles, member roles, overwrites and pins as the bot changes them. */
  readonly admin = new GuildAdmin(this);

  constructor(
    readonly token: string,
    botName: string,
  ) {
    super();
    this.bot = this.createUser({ username: botName, bot: true });
    this.gateway = new FakeGateway({
      token: this.token,
      url: () => this.gatewayUrl,
      botId: () => this.bot.id,
      onIdentify: (inShard) => ({
        ready: {
          v: 10,
          user: { ...userJson(this.bot), verified: true, mfa_enabled: false },
          guilds: [...this.guilds.keys()].filter(inShard).map((id) => ({ id, unavailable: true })),
          application: { id: this.bot.id, flags: 0 },
          private_channels: [],
          relationships: [],
          user_settings: {},
          presences: [],
          guild_join_requests: [],
          geo_ordered_rtc_regions: [],
        },
        guildCreates: [...this.guilds.values()]
          .filter((g) => inShard(g.id))
          .map((g) => this.guildCreateJson(g)),
      }),
      onRequestMembers: (guildId) => this.memberList(guildId),
    });
  }

  abstract get gatewayUrl(): string;

  // ---------------------------------------------------------------- world building

  createUser(opts: {
    id?: string;
    username: string;
    bot?: boolean;
    globalName?: string;
  }): FakeUser {
    const user: FakeUser = {
      id: opts.id ?? this.ids.next(),
      username: opts.username,
      bot: opts.bot ?? false,
      globalName: opts.globalName ?? null,
    };
    this.users.set(user.id, user);
    return user;
  }

  /** Creates a guild with the bot as a member, an @everyone role and a `moderators` role. */
  createGuild(opts: { id?: string; name?: string; ownerId?: string } = {}): FakeGuild {
    const id = opts.id ?? this.ids.next();
    const guild: FakeGuild = {
      id,
      name: opts.name ?? `guild-${id}`,
      ownerId: opts.ownerId ?? this.bot.id,
      createdAt: new Date().toISOString(),
      roles: new Map(),
      members: new Map(),
      channelIds: [],
    };
    guild.roles.set(id, { id, name: '@everyone', permissions: EVERYONE_DEFAULT, position: 0 });
    const modRole = this.ids.next();
    guild.roles.set(modRole, {
      id: modRole,
      name: 'moderators',
      permissions: EVERYONE_DEFAULT | Permission.ManageChannels | Permission.ManageMessages,
      position: 1,
    });
    const botRole = this.ids.next();
    guild.roles.set(botRole, {
      id: botRole,
      name: 'dirigent-bot',
      permissions: Permission.Administrator,
      position: 2,
    });
    this.guilds.set(id, guild);
    guild.members.set(this.bot.id, {
      userId: this.bot.id,
      roleIds: [botRole],
      joinedAt: guild.createdAt,
      nick: null,
    });
    this.gateway.dispatch('GUILD_CREATE', this.guildCreateJson(guild));
    return guild;
  }

  /** The id of the guild's role that grants Manage Channels. */
  moderatorRoleId(guildId: string): string {
    const g = this.guild(guildId);
    return [...g.roles.values()].find((r) => r.name === 'moderators')!.id;
  }

  /**
   * Adds a user to a guild (GUILD_MEMBER_ADD); `manageChannels` gives the moderators role,
   * `nick` a guild nickname.
   */
  addMember(
    guildId: string,
    userId: string,
    opts: { manageChannels?: boolean; nick?: string } = {},
  ): FakeMember {
    const g = this.guild(guildId);
    const user = this.user(userId);
    const member: FakeMember = {
      userId,
      roleIds: opts.manageChannels ? [this.moderatorRoleId(guildId)] : [],
      joinedAt: new Date().toISOString(),
      nick: opts.nick ?? null,
    };
    g.members.set(userId, member);
    this.gateway.dispatch('GUILD_MEMBER_ADD', { ...memberJson(member, user), guild_id: guildId });
    return member;
  }

  removeMember(guildId: string, userId: string): void {
    const g = this.guild(guildId);
    if (!g.members.delete(userId)) throw new Error(`${userId} is not a member of ${guildId}`);
    this.gateway.dispatch('GUILD_MEMBER_REMOVE', {
      guild_id: guildId,
      user: userJson(this.user(userId)),
    });
  }

  createChannel(
    guildId: string,
    opts: { id?: string; name: string; type?: number; overwrites?: Overwrite[]; topic?: string },
  ): FakeChannel {
    const g = this.guild(guildId);
    const channel: FakeChannel = {
      id: opts.id ?? this.ids.next(),
      guildId,
      name: opts.name,
      type: opts.type ?? 0,
      position: g.channelIds.length,
      parentId: null,
      topic: opts.topic ?? null,
      overwrites: opts.overwrites ?? [],
      lastMessageId: null,
    };
    this.channels.set(channel.id, channel);
    this.messages.set(channel.id, []);
    g.channelIds.push(channel.id);
    this.gateway.dispatch('CHANNEL_CREATE', channelJson(channel));
    this.emit('channelCreated', channel);
    return channel;
  }

  /**
   * Replaces a channel's permission overwrites, as editing its permissions in Discord does:
   * CHANNEL_UPDATE with the whole channel.
   */
  setOverwrites(channelId: string, overwrites: Overwrite[]): FakeChannel {
    const c = this.channel(channelId);
    c.overwrites = overwrites.map((o) => ({ ...o }));
    this.gateway.dispatch('CHANNEL_UPDATE', channelJson(c));
    return c;
  }

  /**
   * A public thread under `parentId` (THREAD_CREATE), opened by `ownerId` (the bot unless
   * said otherwise); on a message when `messageId` is given (the thread takes its id).
   */
  createThread(
    parentId: string,
    name: string,
    opts: { messageId?: string; autoArchiveMinutes?: number; ownerId?: string } = {},
  ): FakeChannel {
    const parent = this.channel(parentId);
    const start = opts.messageId ? this.message(parentId, opts.messageId) : undefined;
    if (start?.threadId) {
      throw new HttpError(400, 160004, 'A thread has already been created for this message');
    }
    const thread: FakeChannel = {
      id: start?.id ?? this.ids.next(),
      guildId: parent.guildId,
      name,
      type: 11,
      position: 0,
      parentId,
      topic: null,
      overwrites: [],
      lastMessageId: null,
      ownerId: opts.ownerId ?? this.bot.id,
      autoArchiveMinutes: opts.autoArchiveMinutes ?? 1440,
    };
    if (start) start.threadId = thread.id;
    this.channels.set(thread.id, thread);
    this.messages.set(thread.id, []);
    this.gateway.dispatch('THREAD_CREATE', {
      ...threadJson(thread),
      newly_created: true,
    });
    if (start) this.emit('messageUpdated', start);
    return thread;
  }

  /** Users added to or removed from a thread (THREAD_MEMBERS_UPDATE). */
  updateThreadMembers(threadId: string, change: { add?: string[]; remove?: string[] }): void {
    const thread = this.channel(threadId);
    const now = new Date().toISOString();
    this.gateway.dispatch('THREAD_MEMBERS_UPDATE', {
      id: thread.id,
      guild_id: thread.guildId,
      member_count: 0,
      added_members: (change.add ?? []).map((userId) => ({
        id: thread.id,
        user_id: userId,
        join_timestamp: now,
        flags: 0,
      })),
      removed_member_ids: change.remove ?? [],
    });
  }

  deleteChannel(channelId: string): FakeChannel {
    const c = this.channel(channelId);
    this.channels.delete(c.id);
    const g = this.guild(c.guildId);
    g.channelIds = g.channelIds.filter((id) => id !== c.id);
    this.gateway.dispatch('CHANNEL_DELETE', channelJson(c));
    return c;
  }

  // ---------------------------------------------------------------- reading

  /** Messages of a channel, oldest first. */
  channelMessages(channelId: string): FakeMessage[] {
    return [...(this.messages.get(channelId) ?? [])];
  }

  /** Permissions of a user in a channel (Discord's overwrite algorithm). */
  permissionsOf(guildId: string, userId: string, channel: FakeChannel): bigint {
    const g = this.guild(guildId);
    const member = g.members.get(userId);
    return channelPermissions({
      guildId,
      ownerId: g.ownerId,
      userId,
      memberRoleIds: member?.roleIds ?? [],
      rolePermissions: new Map([...g.roles.values()].map((r) => [r.id, r.permissions])),
      overwrites: channel.overwrites,
    });
  }

  canView(channelId: string, userId: string): boolean {
    const c = this.channel(channelId);
    return (this.permissionsOf(c.guildId, userId, c) & Permission.ViewChannel) !== 0n;
  }

  /** The guild, or Discord's Unknown Guild. */
  guild(id: string): FakeGuild {
    const g = this.guilds.get(id);
    if (!g) throw notFound('Guild', 10004);
    return g;
  }

  /** The channel, or Discord's Unknown Channel. */
  channel(id: string): FakeChannel {
    const c = this.channels.get(id);
    if (!c) throw notFound('Channel', 10003);
    return c;
  }

  /** The user, or Discord's Unknown User. */
  user(id: string): FakeUser {
    const u = this.users.get(id);
    if (!u) throw notFound('User', 10013);
    return u;
  }

  /** A message of a channel, or Discord's Unknown Channel / Unknown Message. */
  message(channelId: string, messageId: string): FakeMessage {
    this.channel(channelId);
    const m = (this.messages.get(channelId) ?? []).find((x) => x.id === messageId);
    if (!m) throw notFound('Message', 10008);
    return m;
  }

  memberList(guildId: string) {
    const g = this.guild(guildId);
    return [...g.members.values()].map((m) => memberJson(m, this.user(m.userId)));
  }

  /** A message as the API and the gateway show it to the bot. */
  messageOut(m: FakeMessage) {
    const author = this.user(m.authorId);
    const member = this.guilds.get(m.guildId)?.members.get(m.authorId);
    return messageJson(m, author, member ? { json: memberJson(member, author) } : null, {
      mentioned: m.mentionIds.map((id) => this.users.get(id)!).filter(Boolean),
      botId: this.bot.id,
    });
  }

  storeMessage(
    m: Omit<FakeMessage, 'id' | 'createdAt' | 'flags' | 'mentionIds' | 'reactions'> & {
      flags?: number;
    },
  ) {
    const id = this.ids.next();
    const message: FakeMessage = {
      ...m,
      id,
      // Discord's timestamp is the id's (discord.js reads `createdAt` from the id).
      createdAt: snowflakeTime(id),
      flags: m.flags ?? 0,
      mentionIds: [...new Set([...m.content.matchAll(/<@!?(\d{1,20})>/g)].map((x) => x[1]))].filter(
        (id) => this.users.has(id),
      ),
      reactions: [],
    };
    this.messages.get(m.channelId)!.push(message);
    this.channel(m.channelId).lastMessageId = message.id;
    this.gateway.dispatch('MESSAGE_CREATE', this.messageOut(message));
    this.emit('messageCreated', message);
    return message;
  }

  protected guildCreateJson(g: FakeGuild) {
    return {
      ...guildJson(g),
      joined_at: g.createdAt,
      large: false,
      unavailable: false,
      member_count: g.members.size,
      members: this.memberList(g.id),
      channels: g.channelIds.map((id) => {
        const { guild_id: _g, ...rest } = channelJson(this.channel(id));
        return rest;
      }),
      threads: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }
}
