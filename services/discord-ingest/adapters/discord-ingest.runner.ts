import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Events, type Guild } from 'discord.js';
import { exitFatally, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from '../config';
import { refusal } from '../domain/refusals';
import { DiscordConnection } from './discord-connection';
import { DiscordEventPublisher } from './event-publisher';
import { GatewayIngest } from './gateway-ingest';
import { IngestShards } from './ingest-shards';
import { SlashCommands } from './slash-commands';

const RETRY_MS = 5000;
const STARTUP_WAIT_MS = 20_000;

/**
 * Start-up order: gateway listeners first, then the REST login and the shard count; commands
 * may run from then on (they wait for it); then the shard leases, each held set connected
 * and caught up (IngestShards). Without a token the service stays up, healthy, with no
 * Discord. The client is destroyed only after the leases were given back.
 */
@Injectable()
export class DiscordIngestRunner
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly log = new Logger('discord-ingest');
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Resolves when the service is logged in and has joined the shard leases. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
    private readonly connection: DiscordConnection,
    private readonly gateway: GatewayIngest,
    private readonly slash: SlashCommands,
    private readonly publisher: DiscordEventPublisher,
    private readonly shards: IngestShards,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const client = this.connection.client;
    if (!client) {
      this.log.warn('DISCORD_TOKEN is not set: running without a Discord connection');
      return;
    }
    this.gateway.attach(client);
    this.slash.attach(client);
    this.shards.attach(client);
    // After READY, discord.js emits GuildCreate only for a guild the bot was not in.
    client.on(Events.GuildCreate, (g) => void this.joined(g, `join-${randomUUID()}`));
    client.on(Events.Error, (e) => this.log.error({ err: e.message }, 'discord.js error'));
    // A refused token or privileged intent is no outage: retrying cannot mend it.
    client.on(Events.ShardDisconnect, ({ code }) => this.refused({ closeCode: code }));
    this.ready = this.connect();
    // Start-up waits a bounded time for Discord; after that the service listens (and
    // answers /healthz) while the connection keeps being retried in the background.
    await Promise.race([this.ready, this.sleep(STARTUP_WAIT_MS)]);
  }

  private async connect(): Promise<void> {
    const client = await this.retry(`connect to Discord at ${this.config.DISCORD_API_URL}`, () =>
      this.connection.login().catch((e: { status?: number }) => {
        this.refused({ httpStatus: e.status });
        throw e;
      }),
    );
    if (!client) return;
    const count = await this.retry('read the shard count', () => this.connection.shardCount());
    if (count === null) return;
    this.connection.markStarted(client);
    await this.retry('join the shard leases', () => this.shards.start(client, count));
  }

  /** Ends the service with one line saying what to enable or replace, if Discord refused it. */
  private refused(r: { closeCode?: number; httpStatus?: number }): void {
    const line = refusal(r);
    if (!line || this.stopped) return;
    this.stopped = true;
    exitFatally(line);
  }

  /** Tells the others the bot is in a guild. */
  private async joined(guild: Guild, cause: string): Promise<void> {
    try {
      await this.publisher.guildJoined({ guildId: guild.id, name: guild.name }, cause);
    } catch (e) {
      this.log.error(
        { guildId: guild.id, err: (e as Error).message },
        'guild.joined not published',
      );
    }
  }

  private async retry<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
    while (!this.stopped) {
      try {
        return await fn();
      } catch (e) {
        this.log.error({ err: (e as Error).message }, `could not ${what}; retrying`);
        await this.sleep(RETRY_MS);
      }
    }
    return null;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.timers.add(timer);
    });
  }

  beforeApplicationShutdown(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.connection.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.shards.stop().catch((e: Error) => this.log.error({ err: e.message }, 'leases'));
    await this.connection.destroy();
  }
}
