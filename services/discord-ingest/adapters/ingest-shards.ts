import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Events, type Client, type Guild } from 'discord.js';
import { Buckets } from '@dirigent/contracts';
import { Messaging, PartitionLeases, type PartitionOwner } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from '../config';
import { DiscordCommandHandlers } from '../handlers/discord-commands.handlers';
import { DiscordConnection } from './discord-connection';
import { DiscordEventPublisher } from './event-publisher';
import { GatewayIngest } from './gateway-ingest';
import { gatewayConnected, shardsOwned } from './metrics';
import { SlashCommands } from './slash-commands';

/** Lease changes arriving within this time are applied as one new shard set. */
const SETTLE_MS = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The bot's gateway shards, leased to the ingest replicas (the shared `PartitionLeases`, as
 * the coordinator's partitions): each shard is connected by the one replica holding its
 * lease. When the held set changes, only the shards that changed are closed or connected
 * (`connectShardSet`; the others keep their gateway sessions) and every channel of its guilds
 * is caught up from the newest message in the stream, so a dead replica's gap is covered; envelope ids (`Nats-Msg-Id`) de-duplicate what
 * two holders both publish around a hand-over. Live events wait meanwhile, so each channel
 * keeps Discord's order in the stream.
 *
 * The holder of shard 0 also runs the command consumer (one executor: per-channel lanes and
 * the bot's global REST limit in one process).
 */
@Injectable()
export class IngestShards implements PartitionOwner {
  private readonly log = new Logger('ingest-shards');
  private leases?: PartitionLeases;
  private client?: Client<true>;
  private count = 0;
  private readonly wanted = new Set<number>();
  /** The shard set last connected; null when it must be connected again. */
  private connected: number[] | null = [];
  private resharding = false;
  private applying: Promise<void> = Promise.resolve();
  private pending?: Promise<void>;
  /** Lease acquisitions and releases being applied. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
    private readonly messaging: Messaging,
    private readonly connection: DiscordConnection,
    private readonly gateway: GatewayIngest,
    private readonly publisher: DiscordEventPublisher,
    private readonly slash: SlashCommands,
    private readonly commands: DiscordCommandHandlers,
  ) {}

  /** Shards this replica has connected. */
  get owned(): number[] {
    return this.connected ?? [];
  }

  /**
   * Catches up after discord.js's own reconnects (a resumed or re-identified session); the
   * shard set changes catch up by themselves.
   */
  attach(client: Client): void {
    const dropped = () => {
      gatewayConnected.set(0);
      this.gateway.holdLiveEvents();
    };
    const back = () => {
      gatewayConnected.set(1);
      if (!this.resharding) void this.gateway.catchUp(client as Client<true>);
    };
    client.on(Events.ShardDisconnect, dropped);
    client.on(Events.ShardReconnecting, dropped);
    client.on(Events.ShardResume, back);
    client.on(Events.ShardReady, back);
  }

  /** Joins the replicas sharing the bot's `count` shards and takes a share of the leases. */
  async start(client: Client<true>, count: number): Promise<void> {
    this.client = client;
    this.count = count;
    const replicaId = this.config.DISCORD_INGEST_REPLICA_ID ?? `ingest-${randomUUID()}`;
    this.leases = await PartitionLeases.open(
      this.messaging,
      {
        partitions: count,
        replicaId,
        leaseMs: this.config.DISCORD_SHARD_LEASE_MS,
        bucket: Buckets.ingestShardLeases,
        setting: 'DISCORD_SHARD_COUNT',
        log: this.log,
      },
      this,
    );
    await this.leases.start();
    await this.settled();
    this.log.log({ replicaId, shards: count, owned: this.owned, msg: 'shard leases started' });
  }

  /** Resolves once the lease changes so far are applied to the connected shard set. */
  async settled(): Promise<void> {
    await sleep(0);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Gives the leases back (shards disconnected first) so that others take them at once. */
  async stop(): Promise<void> {
    await this.leases?.stop();
  }

  acquire(k: number): Promise<void> {
    this.wanted.add(k);
    return this.track(Promise.all([this.sync(), k === 0 ? this.commands.start() : null]));
  }

  release(k: number): Promise<void> {
    this.wanted.delete(k);
    return this.track(Promise.all([this.sync(), k === 0 ? this.commands.stop() : null]));
  }

  private async track(work: Promise<unknown>): Promise<void> {
    this.inFlight.add(work);
    try {
      await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  /** Connects the wanted set once the lease changes of the moment have all arrived. */
  private sync(): Promise<void> {
    this.pending ??= sleep(SETTLE_MS).then(() => {
      this.pending = undefined;
      const run = this.applying.then(() => this.apply());
      this.applying = run.catch(() => undefined);
      return run;
    });
    return this.pending;
  }

  private async apply(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const ids = [...this.wanted].sort((a, b) => a - b);
    if (this.connected && ids.join() === this.connected.join()) return;
    const before = new Set(client.guilds.cache.keys());
    this.resharding = true;
    this.connected = null;
    this.gateway.holdLiveEvents();
    // Another replica may have published in these channels since: read the stream again.
    this.publisher.forgetNewest();
    try {
      await this.connection.connectShards(ids, this.count);
      this.connected = ids;
    } finally {
      this.resharding = false;
      gatewayConnected.set(ids.length > 0 ? 1 : 0);
      shardsOwned.set(this.connected?.length ?? 0);
      await this.gateway.catchUp(client);
    }
    this.log.log({ shards: ids, guilds: client.guilds.cache.size, msg: 'shard set connected' });
    const cause = `shards-${randomUUID()}`;
    for (const g of client.guilds.cache.values()) {
      if (!before.has(g.id)) await this.held(g, cause);
    }
  }

  /** A guild newly held: its slash commands, and `guild.joined` for the others. */
  private async held(guild: Guild, cause: string): Promise<void> {
    await this.slash.register(guild);
    try {
      await this.publisher.guildJoined({ guildId: guild.id, name: guild.name }, cause);
    } catch (e) {
      this.log.error({ guildId: guild.id, err: (e as Error).message, msg: 'guild.joined lost' });
    }
  }
}
