import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { notFound } from './http-error';
import type { FakeMessage, FakeWebhook, InteractionResponse } from './model';
import {
  ScriptedFailures,
  handleHttp,
  type RecordedRequest,
  type RouteFailure,
} from './rest-server';
import { channelJson, emojiJson, memberJson } from './serialize';
import { FakeStore } from './store';

export type { RecordedRequest, RouteFailure } from './rest-server';

export interface FakeDiscordOptions {
  /** The bot token clients must present (`Authorization: Bot <token>`, IDENTIFY). */
  token?: string;
  /** The bot user's name. */
  botName?: string;
  /** Listen port; 0 (default) picks a free one. Always loopback unless `host` is given. */
  port?: number;
  host?: string;
  heartbeatIntervalMs?: number;
  /** The shard count `GET /gateway/bot` recommends (1). */
  shards?: number;
}

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
export class FakeDiscord extends FakeStore {
  readonly requests: RecordedRequest[] = [];
  readonly failures = new ScriptedFailures();
  private server: Server | null = null;
  private port = 0;
  private host = '127.0.0.1';

  constructor(opts: FakeDiscordOptions = {}) {
    super(opts.token ?? 'fake-discord-token', opts.botName ?? 'dirigent');
    if (opts.heartbeatIntervalMs) this.gateway.heartbeatIntervalMs = opts.heartbeatIntervalMs;
    if (opts.shards) this.recommendedShards = opts.shards;
  }

  /** Creates and starts a fake on a free loopback port. */
  static async start(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(opts);
    await fake.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
    return fake;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<void> {
    this.host = host;
    const server = createServer((req, res) => void handleHttp(this, req, res));
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
   * Reacts to a message as any user (MESSAGE_REACTION_ADD); `emoji` is the unicode
   * character or `name:id`. Reacting again with the same emoji changes nothing, as on Discord.
   */
  react(opts: { channelId: string; messageId: string; userId: string; emoji: string }): void {
    const m = this.message(opts.channelId, opts.messageId);
    this.user(opts.userId);
    let reaction = m.reactions.find((r) => r.emoji === opts.emoji);
    if (reaction?.userIds.includes(opts.userId)) return;
    if (!reaction) m.reactions.push((reaction = { emoji: opts.emoji, userIds: [] }));
    reaction.userIds.push(opts.userId);
    this.emit('reactionChanged', m);
    const member = this.guild(m.guildId).members.get(opts.userId);
    this.gateway.dispatch('MESSAGE_REACTION_ADD', {
      ...this.reactionEvent(m, opts.userId, opts.emoji),
      message_author_id: m.authorId,
      burst_colors: [],
      ...(member ? { member: memberJson(member, this.user(opts.userId)) } : {}),
    });
  }

  /** Takes a user's reaction away (MESSAGE_REACTION_REMOVE); nothing when there is none. */
  unreact(opts: { channelId: string; messageId: string; userId: string; emoji: string }): void {
    const m = this.message(opts.channelId, opts.messageId);
    const reaction = m.reactions.find((r) => r.emoji === opts.emoji);
    if (!reaction?.userIds.includes(opts.userId)) return;
    reaction.userIds = reaction.userIds.filter((id) => id !== opts.userId);
    if (!reaction.userIds.length) m.reactions.splice(m.reactions.indexOf(reaction), 1);
    this.emit('reactionChanged', m);
    this.gateway.dispatch(
      'MESSAGE_REACTION_REMOVE',
      this.reactionEvent(m, opts.userId, opts.emoji),
    );
  }

  private reactionEvent(m: FakeMessage, userId: string, emoji: string) {
    return {
      user_id: userId,
      type: 0,
      message_id: m.id,
      channel_id: m.channelId,
      guild_id: m.guildId,
      emoji: emojiJson(emoji),
      burst: false,
    };
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

  /** Drops the gateway connection(s); see `FakeGateway.drop`. */
  dropGateway(opts: { resumable?: boolean } = {}): void {
    this.gateway.drop(opts);
  }

  /**
   * Makes the gateway close every IDENTIFY with `code` (4014: a privileged intent is not
   * enabled; 4004: the token is refused) until called with null.
   */
  refuseIdentify(code: number | null, reason = 'refused by the local Discord'): void {
    this.gateway.refusal = code === null ? null : { code, reason };
  }

  /** Answers the next `times` (default 1) requests matching a route with `status`. */
  failNext(failure: RouteFailure): void {
    this.failures.add(failure);
  }
}
