import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Events, type Client } from 'discord.js';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from './config';
import { CommandExecutor } from './command-executor';
import { DiscordConnection } from './discord-connection';
import { DiscordRpc } from './discord-rpc';
import { GatewayIngest } from './gateway-ingest';
import { SlashCommandHandler } from './slash-command-handler';

const RETRY_LOGIN_MS = 5000;

/**
 * Start-up order: handlers first, then login; once ready, slash commands, catch-up and the
 * command consumer. Without a token the service stays up, healthy, with no Discord.
 */
@Injectable()
export class DiscordIngestRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('discord-ingest');
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Resolves when the service is connected, caught up and consuming commands. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
    private readonly connection: DiscordConnection,
    private readonly gateway: GatewayIngest,
    private readonly commands: CommandExecutor,
    private readonly rpc: DiscordRpc,
    private readonly slash: SlashCommandHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.rpc.serve();
    const client = this.connection.client;
    if (!client) {
      this.log.warn('DISCORD_TOKEN is not set: running without a Discord connection');
      return;
    }
    this.gateway.attach(client);
    this.slash.attach(client);
    let initialised = false;
    client.on(Events.ShardResume, () => void this.gateway.catchUp(client as Client<true>));
    client.on(Events.ShardReady, () => {
      if (initialised) void this.gateway.catchUp(client as Client<true>);
    });
    client.on(Events.Error, (e) => this.log.error({ err: e.message }, 'discord.js error'));
    this.ready = this.connect().then(() => {
      initialised = true;
    });
    await this.ready;
  }

  private async connect(): Promise<void> {
    while (!this.stopped) {
      try {
        const client = await this.connection.login();
        await Promise.all(client.guilds.cache.map((g) => this.slash.register(g)));
        await this.gateway.catchUp(client);
        await this.commands.start(client);
        return;
      } catch (e) {
        this.log.error(
          { err: (e as Error).message },
          `could not connect to Discord at ${this.config.DISCORD_API_URL}; retrying`,
        );
        await new Promise<void>((resolve) => {
          this.retryTimer = setTimeout(resolve, RETRY_LOGIN_MS);
        });
      }
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.commands.stop();
    await this.connection.destroy();
  }
}
