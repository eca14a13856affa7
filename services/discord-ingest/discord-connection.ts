import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client, Events, GatewayIntentBits, type ClientOptions } from 'discord.js';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from './config';

export const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
  GatewayIntentBits.GuildMessageTyping,
];

/** Owns the discord.js client: its options, login and teardown. */
@Injectable()
export class DiscordConnection {
  private readonly log = new Logger('discord-connection');
  readonly client: Client | null;

  constructor(@Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig) {
    const options: ClientOptions = {
      intents: INTENTS,
      // One quick retry inside discord.js REST; the command consumer owns the longer backoff.
      rest: { api: config.DISCORD_API_URL, version: '10', retries: 1 },
      waitGuildTimeout: 5000,
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

  async destroy(): Promise<void> {
    await this.client?.destroy();
  }
}
