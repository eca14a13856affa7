import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { handleControl } from './control-api';
import { FakeGateway } from './gateway';
import type {
  FakeChannel,
  FakeCommand,
  FakeGuild,
  FakeInteraction,
  FakeMember,
  FakeMessage,
  FakeUser,
  FakeWebhook,
  InteractionResponse,
} from './model';
import { EVERYONE_DEFAULT, Permission, channelPermissions, type Overwrite } from './permissions';
import {
  channelJson,
  commandJson,
  guildJson,
  memberJson,
  messageDefaults,
  messageJson,
  userJson,
  webhookJson,
} from './serialize';
import { SnowflakeGenerator, compareSnowflakes } from './snowflakes';

export interface FakeDiscordOptions {
  /** The bot token clients must present (`Authorization: Bot <token>`, IDENTIFY). */
  token?: string;
  /** The bot user's name. */
  botName?: string;
  /** Listen port; 0 (default) picks a free one. Always loopback unless `host` is given. */
  port?: number;
  host?: string;
  heartbeatIntervalMs?: number;
}

/** A scripted answer for the next requests matching a route. */
export interface RouteFailure {
  method: string;
  /** Exact API path after `/api/v10`, e.g. `/channels/123/messages`, or a RegExp. */
  path: string | RegExp;
  /** HTTP status; 429 adds the rate-limit headers and body. */
  status: number;
  times?: number;
  /** For 429: seconds to wait (fractional allowed). */
  retryAfter?: number;
  /** Discord JSON error code (e.g. 50001 Missing Access). */
  code?: number;
  message?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
  at: number;
  status: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const notFound = (what: string, code: number) => new HttpError(404, code, `Unknown ${what}`);

/**
 * A local Discord for tests and the playground: an HTTP server speaking the subset of the
 * REST API v10 and the gateway that discord.js 14 needs, with in-memory guilds, channels,
 * members, messages, webhooks and application commands, plus hooks to act as any user,
 * drop the gateway and script failures.
 *
 * @example
 * const discord = await FakeDiscord.start({ token: 'test-token' });
 * const guild = discord.createGuild({ name: 'g' });
 * const general = discord.createChannel(guild.id, { name: 'general' });
 * const alice = discord.createUser({ username: 'alice' });
 * discord.addMember(guild.id, alice.id);
 * const client = new Client({ intents, rest: { api: discord.apiUrl } });
 * await client.login('test-token');
 * discord.postMessage({ channelId: general.id, authorId: alice.id, content: 'hi' });
 * await discord.stop();
 */
export class FakeDiscord extends EventEmitter {
  readonly token: string;
  readonly ids = new SnowflakeGenerator();
  readonly bot: FakeUser;
  readonly users = new Map<string, FakeUser>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage[]>();
  readonly webhooks = new Map<string, FakeWebhook>();
  readonly commands = new Map<string, FakeCommand>();
  readonly interactions = new Map<string, FakeInteraction>();
  readonly requests: RecordedRequest[] = [];
  readonly gateway: FakeGateway;
  private readonly failures: (RouteFailure & { left: number })[] = [];
  private server: Server | null = null;
  private port = 0;
  private host = '127.0.0.1';

  constructor(opts: FakeDiscordOptions = {}) {
    super();
    this.token = opts.token ?? 'fake-discord-token';
    this.bot = this.createUser({ username: opts.botName ?? 'dirigent', bot: true });
    this.gateway = new FakeGateway({
      token: this.token,
      url: () => this.gatewayUrl,
      botId: () => this.bot.id,
      onIdentify: () => ({
        ready: {
          v: 10,
          user: { ...userJson(this.bot), verified: true, mfa_enabled: false },
          guilds: [...this.guilds.keys()].map((id) => ({ id, unavailable: true })),
          application: { id: this.bot.id, flags: 0 },
          private_channels: [],
          relationships: [],
          user_settings: {},
          presences: [],
          guild_join_requests: [],
          geo_ordered_rtc_regions: [],
        },
        guildCreates: [...this.guilds.values()].map((g) => this.guildCreateJson(g)),
      }),
      onRequestMembers: (guildId) => this.memberList(guildId),
    });
    if (opts.heartbeatIntervalMs) this.gateway.heartbeatIntervalMs = opts.heartbeatIntervalMs;
  }

  /** Creates and starts a fake on a free loopback port. */
  static async start(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(opts);
    await fake.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
    return fake;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<void> {
    this.host = host;
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('upgrade', (req, socket, head) => {
      this.gateway.wss.handleUpgrade(req, socket, head, (ws) =>
        this.gateway.wss.emit('connection', ws, req),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** What clients pass as `rest.api` (discord.js adds `/v10`). */
  get apiUrl(): string {
    return `http://${this.urlHost}:${this.port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://${this.urlHost}:${this.port}/gateway`;
  }

  private get urlHost(): string {
    return this.host === '0.0.0.0' ? '127.0.0.1' : this.host;
  }

  async stop(): Promise<void> {
    this.gateway.close();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

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

  /** Adds a user to a guild (GUILD_MEMBER_ADD); `manageChannels` gives the moderators role. */
  addMember(guildId: string, userId: string, opts: { manageChannels?: boolean } = {}): FakeMember {
    const g = this.guild(guildId);
    const user = this.user(userId);
    const member: FakeMember = {
      userId,
      roleIds: opts.manageChannels ? [this.moderatorRoleId(guildId)] : [],
      joinedAt: new Date().toISOString(),
      nick: null,
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
    return channel;
  }

  // ---------------------------------------------------------------- acting as users

  /** Posts a message as any user (human or bot) — MESSAGE_CREATE on the gateway. */
  postMessage(opts: {
    channelId: string;
    authorId: string;
    content: string;
    replyToMessageId?: string;
  }): FakeMessage {
    const channel = this.channel(opts.channelId);
    this.user(opts.authorId);
    return this.storeMessage({
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: opts.authorId,
      content: opts.content,
      replyToMessageId: opts.replyToMessageId,
    });
  }

  /** Creates a webhook in a channel (as the bot unless `creatorId` says otherwise). */
  createWebhook(channelId: string, name: string, creatorId = this.bot.id): FakeWebhook {
    const channel = this.channel(channelId);
    const hook: FakeWebhook = {
      id: this.ids.next(),
      token: randomBytes(24).toString('base64url'),
      guildId: channel.guildId,
      channelId,
      name,
      avatar: null,
      creatorId,
    };
    this.webhooks.set(hook.id, hook);
    return hook;
  }

  /** Posts through a webhook, as an external integration would. */
  postWebhookMessage(opts: {
    webhookId: string;
    content: string;
    username?: string;
    avatarUrl?: string;
  }): FakeMessage {
    const hook = this.webhooks.get(opts.webhookId);
    if (!hook) throw new Error(`no webhook ${opts.webhookId}`);
    return this.storeMessage({
      channelId: hook.channelId,
      guildId: hook.guildId,
      authorId: hook.creatorId,
      content: opts.content,
      webhookId: hook.id,
      webhookUsername: opts.username ?? hook.name,
      webhookAvatarUrl: opts.avatarUrl,
    });
  }

  /** Deletes a message as a user would (MESSAGE_DELETE). */
  deleteMessage(channelId: string, messageId: string): void {
    const list = this.messages.get(channelId) ?? [];
    const i = list.findIndex((m) => m.id === messageId);
    if (i < 0) throw notFound('Message', 10008);
    const [removed] = list.splice(i, 1);
    this.gateway.dispatch('MESSAGE_DELETE', {
      id: removed.id,
      channel_id: channelId,
      guild_id: removed.guildId,
    });
    this.emit('messageDeleted', removed);
  }

  startTyping(channelId: string, userId: string): void {
    const channel = this.channel(channelId);
    const member = this.guild(channel.guildId).members.get(userId);
    this.gateway.dispatch('TYPING_START', {
      channel_id: channelId,
      guild_id: channel.guildId,
      user_id: userId,
      timestamp: Math.floor(Date.now() / 1000),
      ...(member ? { member: memberJson(member, this.user(userId)) } : {}),
    });
  }

  /**
   * Runs a slash command as a user (INTERACTION_CREATE). Resolves with the bot's answer:
   * its reply, or the edit of its deferred reply. `options` is the raw option tree.
   */
  runCommand(opts: {
    guildId: string;
    channelId: string;
    userId: string;
    name: string;
    options?: unknown[];
    timeoutMs?: number;
  }): Promise<InteractionResponse> {
    const g = this.guild(opts.guildId);
    const channel = this.channel(opts.channelId);
    const member = g.members.get(opts.userId);
    if (!member) throw new Error(`${opts.userId} is not a member of ${opts.guildId}`);
    const command = [...this.commands.values()].find(
      (c) => c.name === opts.name && (c.guildId === opts.guildId || c.guildId === null),
    );
    if (!command) throw new Error(`no application command /${opts.name} in ${opts.guildId}`);
    const id = this.ids.next();
    const token = randomBytes(32).toString('base64url');
    return new Promise<InteractionResponse>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`/${opts.name}: no answer from the bot`)),
        opts.timeoutMs ?? 10_000,
      );
      this.interactions.set(token, {
        id,
        token,
        guildId: opts.guildId,
        channelId: opts.channelId,
        userId: opts.userId,
        responses: [],
        settle: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
      const perms = this.permissionsOf(opts.guildId, opts.userId, channel);
      this.gateway.dispatch('INTERACTION_CREATE', {
        id,
        application_id: this.bot.id,
        type: 2,
        token,
        version: 1,
        guild_id: opts.guildId,
        guild: { id: opts.guildId, locale: 'en-US', features: [] },
        channel_id: opts.channelId,
        channel: channelJson(channel),
        member: { ...memberJson(member, this.user(opts.userId)), permissions: perms.toString() },
        app_permissions: this.permissionsOf(opts.guildId, this.bot.id, channel).toString(),
        locale: 'en-US',
        guild_locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: { '0': opts.guildId },
        context: 0,
        attachment_size_limit: 8388608,
        data: {
          id: command.id,
          name: command.name,
          type: 1,
          guild_id: command.guildId ?? undefined,
          options: opts.options ?? [],
        },
      });
    });
  }

  /** Drops the gateway connection(s); see {@link FakeGateway.drop}. */
  dropGateway(opts: { resumable?: boolean } = {}): void {
    this.gateway.drop(opts);
  }

  /** Answers the next `times` (default 1) requests matching a route with `status`. */
  failNext(failure: RouteFailure): void {
    this.failures.push({ ...failure, left: failure.times ?? 1 });
  }

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

  // ---------------------------------------------------------------- internals

  private guild(id: string): FakeGuild {
    const g = this.guilds.get(id);
    if (!g) throw notFound('Guild', 10004);
    return g;
  }

  private channel(id: string): FakeChannel {
    const c = this.channels.get(id);
    if (!c) throw notFound('Channel', 10003);
    return c;
  }

  private user(id: string): FakeUser {
    const u = this.users.get(id);
    if (!u) throw notFound('User', 10013);
    return u;
  }

  private memberList(guildId: string) {
    const g = this.guild(guildId);
    return [...g.members.values()].map((m) => memberJson(m, this.user(m.userId)));
  }

  private guildCreateJson(g: FakeGuild) {
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

  private messageOut(m: FakeMessage) {
    const author = this.user(m.authorId);
    const member = this.guilds.get(m.guildId)?.members.get(m.authorId);
    return messageJson(m, author, member ? { json: memberJson(member, author) } : null);
  }

  private storeMessage(m: Omit<FakeMessage, 'id' | 'createdAt' | 'flags'> & { flags?: number }) {
    const message: FakeMessage = {
      ...m,
      id: this.ids.next(),
      createdAt: new Date().toISOString(),
      flags: m.flags ?? 0,
    };
    this.messages.get(m.channelId)!.push(message);
    this.channel(m.channelId).lastMessageId = message.id;
    this.gateway.dispatch('MESSAGE_CREATE', this.messageOut(message));
    this.emit('messageCreated', message);
    return message;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    let body: any = undefined;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (url.pathname.startsWith('/_fake/')) {
      await this.control(method, decodeURIComponent(url.pathname), raw, res);
      return;
    }
    const path = decodeURIComponent(url.pathname.replace(/^\/api(\/v\d+)?/, ''));
    const record: RecordedRequest = {
      method,
      path,
      query: url.searchParams,
      body,
      at: Date.now(),
      status: 0,
    };
    this.requests.push(record);
    if (this.requests.length > 10_000) this.requests.splice(0, 5_000);
    const reply = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      if (payload === undefined) {
        res.writeHead(status, headers).end();
      } else {
        res.writeHead(status, { ...JSON_HEADERS, ...headers }).end(JSON.stringify(payload));
      }
      this.emit('request', record);
    };
    try {
      if (raw) {
        const type = req.headers['content-type'] ?? '';
        if (!type.includes('application/json')) {
          throw new HttpError(400, 50035, 'the fake accepts JSON bodies only');
        }
        body = JSON.parse(raw);
        record.body = body;
      }
      const failure = this.failures.find(
        (f) =>
          f.left > 0 &&
          f.method.toUpperCase() === method &&
          (typeof f.path === 'string' ? f.path === path : f.path.test(path)),
      );
      if (failure) {
        failure.left -= 1;
        if (failure.left <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
        if (failure.status === 429) {
          const after = failure.retryAfter ?? 1;
          reply(
            429,
            { message: 'You are being rate limited.', retry_after: after, global: false },
            {
              'retry-after': String(after),
              'x-ratelimit-limit': '5',
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset-after': String(after),
              'x-ratelimit-bucket': 'fake-bucket',
              'x-ratelimit-scope': 'user',
            },
          );
        } else {
          reply(failure.status, {
            message: failure.message ?? `scripted ${failure.status}`,
            code: failure.code ?? 0,
          });
        }
        return;
      }
      const needsAuth = !/^\/(webhooks|interactions)\//.test(path);
      if (needsAuth && req.headers.authorization !== `Bot ${this.token}`) {
        throw new HttpError(401, 0, '401: Unauthorized');
      }
      const [status, payload] = this.route(method, path, url.searchParams, body ?? {});
      reply(status, payload);
    } catch (e) {
      if (e instanceof HttpError) {
        reply(e.status, { message: e.message, code: e.code });
      } else if (e instanceof SyntaxError) {
        reply(400, { message: 'invalid JSON', code: 50109 });
      } else {
        reply(500, { message: (e as Error).message, code: 0 });
      }
    }
  }

  private async control(method: string, path: string, raw: string, res: ServerResponse) {
    let status: number;
    let payload: unknown;
    try {
      [status, payload] = await handleControl(this, method, path, raw ? JSON.parse(raw) : {});
    } catch (e) {
      status = e instanceof HttpError ? e.status : e instanceof SyntaxError ? 400 : 500;
      payload = { error: (e as Error).message };
    }
    if (payload === undefined) res.writeHead(status).end();
    else res.writeHead(status, JSON_HEADERS).end(JSON.stringify(payload));
  }

  private route(
    method: string,
    path: string,
    query: URLSearchParams,
    body: any,
  ): [number, unknown?] {
    const seg = path.split('/').filter(Boolean);
    const is = (m: string, pattern: string) => {
      if (m !== method) return false;
      const p = pattern.split('/').filter(Boolean);
      return p.length === seg.length && p.every((s, i) => s.startsWith(':') || s === seg[i]);
    };

    if (is('GET', '/gateway/bot')) {
      return [
        200,
        {
          url: this.gatewayUrl,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
        },
      ];
    }
    if (is('GET', '/gateway')) return [200, { url: this.gatewayUrl }];
    if (is('GET', '/users/@me')) return [200, userJson(this.bot)];
    if (is('GET', '/users/:id')) return [200, userJson(this.user(seg[1]))];
    if (is('GET', '/applications/@me')) {
      return [200, { id: this.bot.id, name: this.bot.username, flags: 0, bot: userJson(this.bot) }];
    }

    // guilds
    if (is('GET', '/guilds/:g')) return [200, guildJson(this.guild(seg[1]))];
    if (is('GET', '/guilds/:g/channels')) {
      return [200, this.guild(seg[1]).channelIds.map((id) => channelJson(this.channel(id)))];
    }
    if (is('POST', '/guilds/:g/channels')) {
      const g = this.guild(seg[1]);
      if (typeof body.name !== 'string' || !body.name) {
        throw new HttpError(400, 50035, 'Invalid Form Body: name');
      }
      const channel = this.createChannel(g.id, {
        name: body.name,
        type: body.type ?? 0,
        topic: body.topic,
        overwrites: (body.permission_overwrites ?? []).map((o: any) => ({
          id: String(o.id),
          type: Number(o.type) === 1 ? 1 : 0,
          allow: String(o.allow ?? '0'),
          deny: String(o.deny ?? '0'),
        })),
      });
      return [201, channelJson(channel)];
    }
    if (is('GET', '/guilds/:g/members')) {
      const limit = Math.min(Number(query.get('limit') ?? 1), 1000);
      const after = query.get('after') ?? '0';
      const list = [...this.guild(seg[1]).members.values()]
        .filter((m) => compareSnowflakes(m.userId, after) > 0)
        .sort((a, b) => compareSnowflakes(a.userId, b.userId))
        .slice(0, limit);
      return [200, list.map((m) => memberJson(m, this.user(m.userId)))];
    }
    if (is('GET', '/guilds/:g/members/:u')) {
      const m = this.guild(seg[1]).members.get(seg[3]);
      if (!m) throw notFound('Member', 10007);
      return [200, memberJson(m, this.user(m.userId))];
    }
    if (is('GET', '/guilds/:g/webhooks')) {
      const hooks = [...this.webhooks.values()].filter((w) => w.guildId === seg[1]);
      return [200, hooks.map((w) => webhookJson(w, this.users.get(w.creatorId), true))];
    }

    // channels
    if (is('GET', '/channels/:c')) return [200, channelJson(this.channel(seg[1]))];
    if (is('DELETE', '/channels/:c')) {
      const c = this.channel(seg[1]);
      this.channels.delete(c.id);
      const g = this.guild(c.guildId);
      g.channelIds = g.channelIds.filter((id) => id !== c.id);
      this.gateway.dispatch('CHANNEL_DELETE', channelJson(c));
      return [200, channelJson(c)];
    }
    if (is('GET', '/channels/:c/messages')) {
      this.channel(seg[1]);
      const limit = Math.min(Math.max(Number(query.get('limit') ?? 50), 1), 100);
      let list = this.channelMessages(seg[1]);
      const after = query.get('after');
      const before = query.get('before');
      if (after) {
        list = list.filter((m) => compareSnowflakes(m.id, after) > 0).slice(0, limit);
      } else {
        if (before) list = list.filter((m) => compareSnowflakes(m.id, before) < 0);
        list = list.slice(-limit);
      }
      // Discord answers newest first.
      return [200, list.reverse().map((m) => this.messageOut(m))];
    }
    if (is('GET', '/channels/:c/messages/:m')) {
      const m = (this.messages.get(seg[1]) ?? []).find((x) => x.id === seg[3]);
      if (!this.channels.has(seg[1])) throw notFound('Channel', 10003);
      if (!m) throw notFound('Message', 10008);
      return [200, this.messageOut(m)];
    }
    if (is('POST', '/channels/:c/messages')) {
      const c = this.channel(seg[1]);
      const content = typeof body.content === 'string' ? body.content : '';
      if (!content) throw new HttpError(400, 50006, 'Cannot send an empty message');
      if (content.length > 2000) {
        throw new HttpError(
          400,
          50035,
          'Invalid Form Body: content: Must be 2000 or fewer in length.',
        );
      }
      const nonce = body.nonce === undefined ? undefined : String(body.nonce);
      if (nonce && body.enforce_nonce) {
        const same = this.channelMessages(c.id).find(
          (m) => m.nonce === nonce && m.authorId === this.bot.id,
        );
        if (same) return [200, this.messageOut(same)];
      }
      const m = this.storeMessage({
        channelId: c.id,
        guildId: c.guildId,
        authorId: this.bot.id,
        content,
        nonce,
        replyToMessageId: body.message_reference?.message_id,
      });
      return [200, this.messageOut(m)];
    }
    if (is('DELETE', '/channels/:c/messages/:m')) {
      this.channel(seg[1]);
      this.deleteMessage(seg[1], seg[3]);
      return [204];
    }
    if (is('POST', '/channels/:c/typing')) {
      this.startTyping(seg[1], this.bot.id);
      return [204];
    }
    if (is('GET', '/channels/:c/webhooks')) {
      this.channel(seg[1]);
      const hooks = [...this.webhooks.values()].filter((w) => w.channelId === seg[1]);
      return [200, hooks.map((w) => webhookJson(w, this.users.get(w.creatorId), true))];
    }
    if (is('POST', '/channels/:c/webhooks')) {
      if (typeof body.name !== 'string' || !body.name || body.name.length > 80) {
        throw new HttpError(400, 50035, 'Invalid Form Body: name');
      }
      if (/clyde|discord/i.test(body.name)) {
        throw new HttpError(400, 50035, 'Invalid Form Body: name contains a forbidden word');
      }
      const hook = this.createWebhook(seg[1], body.name);
      return [200, webhookJson(hook, this.bot, true)];
    }

    // webhooks (token-authenticated)
    if (is('POST', '/webhooks/:id/:token')) {
      const interaction = this.interactions.get(seg[2]);
      if (interaction && seg[1] === this.bot.id) {
        return [200, this.answerInteraction(interaction, 4, body, true)];
      }
      const hook = this.webhooks.get(seg[1]);
      if (!hook || hook.token !== seg[2]) throw notFound('Webhook', 10015);
      const content = typeof body.content === 'string' ? body.content : '';
      if (!content) throw new HttpError(400, 50006, 'Cannot send an empty message');
      if (content.length > 2000) throw new HttpError(400, 50035, 'Invalid Form Body: content');
      const m = this.storeMessage({
        channelId: hook.channelId,
        guildId: hook.guildId,
        authorId: hook.creatorId,
        content,
        webhookId: hook.id,
        webhookUsername: body.username ?? hook.name,
        webhookAvatarUrl: body.avatar_url,
      });
      return query.get('wait') === 'true' ? [200, this.messageOut(m)] : [204];
    }
    if (is('PATCH', '/webhooks/:app/:token/messages/@original')) {
      const interaction = this.interactions.get(seg[2]);
      if (!interaction) throw notFound('Webhook', 10015);
      return [200, this.answerInteraction(interaction, 4, body, false)];
    }
    if (is('POST', '/interactions/:id/:token/callback')) {
      const interaction = this.interactions.get(seg[2]);
      if (!interaction || interaction.id !== seg[1]) throw notFound('Interaction', 10062);
      if (interaction.responses.length) {
        throw new HttpError(400, 40060, 'Interaction has already been acknowledged.');
      }
      this.answerInteraction(interaction, Number(body.type), body.data ?? {}, false);
      return [204];
    }

    // application commands
    if (is('GET', '/applications/:app/guilds/:g/commands')) {
      return [200, this.commandsOf(seg[1], seg[3]).map(commandJson)];
    }
    if (is('PUT', '/applications/:app/guilds/:g/commands')) {
      this.guild(seg[3]);
      return [200, this.overwriteCommands(seg[1], seg[3], body).map(commandJson)];
    }
    if (is('GET', '/applications/:app/commands')) {
      return [200, this.commandsOf(seg[1], null).map(commandJson)];
    }
    if (is('PUT', '/applications/:app/commands')) {
      return [200, this.overwriteCommands(seg[1], null, body).map(commandJson)];
    }
    throw new HttpError(404, 0, `404: Not Found (${method} ${path})`);
  }

  private commandsOf(app: string, guildId: string | null): FakeCommand[] {
    return [...this.commands.values()].filter(
      (c) => c.applicationId === app && c.guildId === guildId,
    );
  }

  /** Bulk overwrite: same name keeps its id (as on Discord), missing names are deleted. */
  private overwriteCommands(app: string, guildId: string | null, body: unknown): FakeCommand[] {
    if (!Array.isArray(body)) throw new HttpError(400, 50035, 'Invalid Form Body');
    const existing = this.commandsOf(app, guildId);
    for (const c of existing) this.commands.delete(c.id);
    return body.map((def: any) => {
      if (typeof def.name !== 'string' || !/^[-_\p{L}\p{N}]{1,32}$/u.test(def.name)) {
        throw new HttpError(400, 50035, `Invalid Form Body: name ${def.name}`);
      }
      const prior = existing.find((c) => c.name === def.name);
      const command: FakeCommand = {
        id: prior?.id ?? this.ids.next(),
        applicationId: app,
        guildId,
        name: def.name,
        description: String(def.description ?? ''),
        type: Number(def.type ?? 1),
        options: def.options ?? [],
        defaultMemberPermissions: def.default_member_permissions ?? null,
        version: this.ids.next(),
      };
      this.commands.set(command.id, command);
      return command;
    });
  }

  private answerInteraction(
    interaction: FakeInteraction,
    type: number,
    data: any,
    followUp: boolean,
  ) {
    const response: InteractionResponse = {
      type,
      content: typeof data.content === 'string' ? data.content : null,
      ephemeral:
        (Number(data.flags ?? 0) & 64) !== 0 || (interaction.responses[0]?.ephemeral ?? false),
    };
    interaction.responses.push(response);
    if (type !== 5 || followUp) interaction.settle(response);
    return {
      id: this.ids.next(),
      type: 0,
      channel_id: interaction.channelId,
      author: userJson(this.bot),
      content: response.content ?? '',
      timestamp: new Date().toISOString(),
      ...messageDefaults(),
      flags: response.ephemeral ? 64 : 0,
      components: [],
      webhook_id: this.bot.id,
    };
  }
}
