import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Buckets } from '@dirigent/contracts';
import { runProjection, type ProjectionRunner } from '@dirigent/event-store';
import { Messaging, PartitionLeases } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { CacheCoherence } from './adapters/cache-coherence';
import { Identities } from './application/identities';
import type { TurnCoordinatorConfig } from './config';
import { channelProjection, identityProjection } from './adapters/projections/projections';
import { ForwardedCheckTurn } from './partitions/forwarded-check-turn';
import { PartitionedConsumers } from './partitions/partitioned-consumers';
import { reportPartitions } from './adapters/metrics';

/**
 * What runs beside the handlers: identities are imported, caches kept coherent with other
 * replicas, durable timers armed and the read models fed. The handlers (reactor first) start
 * after this, when the app starts its microservice. A partitioned replica
 * (DIRIGENT_COORDINATOR_PARTITIONS > 0) then takes its share of the partition leases, whose
 * channel consumers start as each lease is won; the projections run where partition 0 is.
 */
@Injectable()
export class CoordinatorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('turn-coordinator');
  private projections: Pick<ProjectionRunner, 'stop'>[] = [];
  private leases?: PartitionLeases;

  constructor(
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
    private readonly identities: Identities,
    private readonly coherence: CacheCoherence,
    private readonly timers: DurableTimers,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
    @Optional() private readonly partitioned?: PartitionedConsumers,
    @Optional() private readonly checkTurn?: ForwardedCheckTurn,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const imported = await this.identities.importFiles({
        identityFile: this.config.DIRIGENT_IDENTITY_FILE,
        egoFile: this.config.DIRIGENT_EGO_FILE,
      });
      if (imported) this.log.log({ imported }, 'identities imported');
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'identity import failed; continuing');
    }
    await this.coherence.start();
    await this.timers.start();
    const log = {
      info: (o: object, m?: string) => this.log.log({ ...o, msg: m }),
      warn: (o: object, m?: string) => this.log.warn({ ...o, msg: m }),
      error: (o: object, m?: string) => this.log.error({ ...o, msg: m }),
    };
    const projections = {
      start: async () => {
        this.projections = [
          await runProjection(this.messaging, this.orm.em, channelProjection, { log }),
          await runProjection(this.messaging, this.orm.em, identityProjection, { log }),
        ];
      },
      stop: async () => {
        await Promise.all(this.projections.splice(0).map((p) => p.stop()));
      },
    };
    // Partitioned, one replica feeds the read models (exactly once either way, without
    // every replica contending for the checkpoint locks): the one serving partition 0.
    if (this.partitioned && this.config.DIRIGENT_COORDINATOR_PARTITIONS > 0) {
      this.partitioned.withPartitionZero(projections);
    } else {
      await projections.start();
    }
    if (this.partitioned && this.config.DIRIGENT_COORDINATOR_PARTITIONS > 0) {
      const replicaId = this.config.DIRIGENT_COORDINATOR_REPLICA_ID ?? `tc-${randomUUID()}`;
      this.leases = await PartitionLeases.open(
        this.messaging,
        {
          partitions: this.config.DIRIGENT_COORDINATOR_PARTITIONS,
          replicaId,
          leaseMs: this.config.DIRIGENT_COORDINATOR_LEASE_MS,
          bucket: Buckets.coordinatorLeases,
          setting: 'DIRIGENT_COORDINATOR_PARTITIONS',
          log: this.log,
        },
        this.partitioned,
      );
      await this.leases.start();
      const leases = this.leases;
      reportPartitions(this.config.DIRIGENT_COORDINATOR_PARTITIONS, () => leases.owned.length);
      this.checkTurn?.attach(this.leases);
      this.log.log({ replicaId, owned: this.leases.owned, msg: 'partition leases started' });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // Each step on its own: the NATS connection may already be draining.
    const steps: (() => Promise<unknown>)[] = [
      // Leases first: the partitions stop and are handed to the other replicas at once.
      async () => this.checkTurn?.detach(),
      async () => this.leases?.stop(),
      () => this.timers.stop(),
      () => this.coherence.stop(),
      () => Promise.all(this.projections.splice(0).map((p) => p.stop())),
    ];
    for (const step of steps) {
      await step().catch((e: Error) => this.log.warn({ err: e.message }, 'shutdown step failed'));
    }
  }
}
