import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Buckets } from '@dirigent/contracts';
import { Messaging, PartitionLeases } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { MemoryConfig } from '../config';
import { ForwardedSearch } from './forwarded-search';
import { GuildPartitions } from './guild-partitions';

/**
 * The guild partition leases of a partitioned memory replica (DIRIGENT_MEMORY_PARTITIONS >
 * 0), in the KV bucket `dirigent_memory_leases` with the coordinator's `PartitionLeases`:
 * taken at start, renewed, rebalanced as replicas come and go, handed over at shutdown.
 * Not partitioned (the default, `npm start`): nothing runs, the replica holds every guild.
 */
@Injectable()
export class MemoryLeases implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('memory:leases');
  private leases?: PartitionLeases;

  constructor(
    private readonly messaging: Messaging,
    private readonly partitions: GuildPartitions,
    private readonly forwarded: ForwardedSearch,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {}

  /** This replica's leases, once started (partitioned replicas only). */
  get current(): PartitionLeases | undefined {
    return this.leases;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.partitions.enabled) return;
    const replicaId = this.config.DIRIGENT_MEMORY_REPLICA_ID ?? `mem-${randomUUID()}`;
    const log = {
      log: (o: object) => this.log.log(o),
      warn: (o: object) => this.log.warn(o),
      error: (o: object) => this.log.error(o),
    };
    this.leases = await PartitionLeases.open(
      this.messaging,
      {
        partitions: this.partitions.partitions,
        replicaId,
        leaseMs: this.config.DIRIGENT_MEMORY_LEASE_MS,
        bucket: Buckets.memoryLeases,
        setting: 'DIRIGENT_MEMORY_PARTITIONS',
        log,
      },
      this.partitions,
    );
    await this.leases.start();
    this.forwarded.attach(this.leases);
    this.log.log({ replicaId, owned: this.leases.owned, msg: 'guild partition leases started' });
  }

  async onApplicationShutdown(): Promise<void> {
    this.forwarded.detach();
    await this.leases?.stop().catch((e: Error) => this.log.warn({ err: e.message }));
  }
}
