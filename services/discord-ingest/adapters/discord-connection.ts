import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Client,
  ClientUser,
  GatewayIntentBits,
  Partials,
  Routes,
  type ClientOptions,
} from 'discord.js';
import { TransientError } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from '../config';
import { connectShardSet } from './shard-set';

export const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
  GatewayIntentBits.GuildMessageTyping,
  GatewayIntentBits.GuildMessageReactions,
];

/** Reactions to (and deletions of) messages from before the client's cache still arrive. */
export const PARTIALS = [Partials.Message, Partials.Reaction, Partials.User];

/** How often a command waiting for Discord tells JetStream it is still being worked on. */
const WAIT_LAP_MS = 20_000;

/**
 * Owns the discord.js client: its options, REST login, gateway shard set and teardown. The
 * client logs in over REST first (the bot user, the shard count); which gateway shards it
 * connects is set afterwards, and changed, through discord.js's own sharding (`shards`,
 * `shardCount`), as the shard leases come and go.
 */
@Injectable()
export class DiscordConnection {
  private readonly log = new Logger('discord-connection');
  readonly client: Client | null;
  private started!: (client: Client<true>) => void;
  private closing!: () => void;
  private closed = false;
  private readonly startedPromise = new Promise<Client<true>>((resolve) => {
    this.started = resolve;
  });
  private readonly closedPromise = new Promise<null>((resolve) => {
    this.closing = () => resolve(null);
  });

  constructor(@Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig) {
    const options: ClientOptions = {
      intents: INTENTS,
      partials: PARTIALS,
      // One quick retry inside discord.js REST; the command consumer owns the longer backoff.
      rest: { api: config.DISCORD_API_URL, version: '10', retries: 1 },
      waitGuildTimeout: 5000,
    };
    this.client = config.DISCORD_TOKEN ? new Client(options) : null;
  }

  /** Logged in over REST: the bot user is known, REST calls may be made. */
  get loggedIn(): boolean {
    return !!this.client?.user && !!this.client.token;
  }

  /** The moderator's user id: configured, else the logged-in bot. */
  get moderatorId(): string {
    const id = this.config.DIRIGENT_MODERATOR_USER_ID ?? this.client?.user?.id;
    if (!id) throw new Error('moderator unknown before the Discord client is ready');
    return id;
  }

  /**
   * Logs in over REST (token, the bot user as the gateway's READY would give it), without
   * a gateway connection: `connectShards` opens those.
   */
  async login(): Promise<Client<true>> {
    const client = this.client;
    if (!client) throw new Error('no DISCORD_TOKEN');
    client.token = this.config.DISCORD_TOKEN!;
    client.rest.setToken(client.token);
    const me: unknown = await client.rest.get(Routes.user());
    // discord.js's READY handler patches this user, or makes it the same way.
    if (!client.user) {
      const user = new (ClientUser as unknown as new (c: Client, d: unknown) => ClientUser)(
        client,
        me,
      );
      client.user = user;
      client.users.cache.set(user.id, user);
    }
    this.log.log(`logged in to Discord as ${client.user.tag} (${client.user.id})`);
    return client as Client<true>;
  }

  /** The bot's shard count: configured, else Discord's recommendation (`GET /gateway/bot`). */
  async shardCount(): Promise<number> {
    if (this.config.DISCORD_SHARD_COUNT !== 'auto') return Number(this.config.DISCORD_SHARD_COUNT);
    const bot = (await this.client!.rest.get(Routes.gatewayBot())) as { shards: number };
    return bot.shards;
  }

  /**
   * Makes the gateway hold exactly shards `ids` of `count`: only the shards that changed
   * are closed or connected (`connectShardSet`); resolves once the new ones are ready.
   */
  connectShards(ids: number[], count: number): Promise<void> {
    return connectShardSet(this.client!, ids, count);
  }

  /** Logged in and caught up: commands may run from now on. */
  markStarted(client: Client<true>): void {
    this.started(client);
  }

  /**
   * The started client. A command delivered earlier waits here rather than failing, so
   * waiting for Discord does not use up its deliveries; `stillWorking` is called on every
   * lap to keep JetStream from redelivering it meanwhile.
   */
  async startedClient(stillWorking: () => void): Promise<Client<true>> {
    for (;;) {
      if (this.closed) throw new TransientError('discord-ingest is shutting down');
      let timer: NodeJS.Timeout | undefined;
      const lap = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), WAIT_LAP_MS);
      });
      const client = await Promise.race([this.startedPromise, lap, this.closedPromise]);
      clearTimeout(timer);
      if (client) return client;
      if (!this.closed) stillWorking();
    }
  }

  /** Commands still waiting for the start give up (and are redelivered later). */
  close(): void {
    this.closed = true;
    this.closing();
  }

  async destroy(): Promise<void> {
    this.close();
    await this.client?.destroy();
  }
}
