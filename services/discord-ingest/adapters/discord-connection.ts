import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client, Events, GatewayIntentBits, Partials, type ClientOptions } from 'discord.js';
import { TransientError } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from '../config';

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
 * discord.js's sharding options from the config: every shard (`auto`: as many as Discord
 * recommends), or this replica's share of a fixed count.
 */
export function shardOptions(
  config: Pick<DiscordIngestConfig, 'DISCORD_SHARD_COUNT' | 'DISCORD_SHARD_IDS'>,
): Pick<ClientOptions, 'shards' | 'shardCount'> {
  const count = config.DISCORD_SHARD_COUNT === 'auto' ? null : Number(config.DISCORD_SHARD_COUNT);
  if (!config.DISCORD_SHARD_IDS) return count ? { shardCount: count } : { shards: 'auto' };
  if (!count) throw new Error('DISCORD_SHARD_IDS needs a numeric DISCORD_SHARD_COUNT');
  const ids = [...new Set(config.DISCORD_SHARD_IDS.split(',').map(Number))].sort((a, b) => a - b);
  const outside = ids.find((id) => id >= count);
  if (outside !== undefined) {
    throw new Error(
      `DISCORD_SHARD_IDS: shard ${outside} is not below DISCORD_SHARD_COUNT ${count}`,
    );
  }
  return { shards: ids, shardCount: count };
}

/** Owns the discord.js client: its options, login, readiness and teardown. */
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
      ...shardOptions(config),
    };
    this.client = config.DISCORD_TOKEN ? new Client(options) : null;
  }

  get connected(): boolean {
    return this.client?.isReady() ?? false;
  }

  /** The moderator's user id: configured, else the logged-in bot. */
  get moderatorId(): string {
    const id = this.config.DIRIGENT_MODERATOR_USER_ID ?? this.client?.user?.id;
    if (!id) throw new Error('moderator unknown before the Discord client is ready');
    return id;
  }

  /** Logs in and resolves once discord.js is ready (all guilds received). */
  async login(): Promise<Client<true>> {
    const client = this.client;
    if (!client) throw new Error('no DISCORD_TOKEN');
    const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
    await client.login(this.config.DISCORD_TOKEN);
    const c = await ready;
    this.log.log(
      `connected to Discord as ${c.user.tag} (${c.user.id}); ${c.guilds.cache.size} guild(s)`,
    );
    return c;
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
