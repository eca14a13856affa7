import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { runProjection } from '@dirigent/event-store';
import { Messaging, type RunningConsumer } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import type { TurnCoordinatorConfig } from './config';
import { CacheCoherence } from './coherence';
import { Consumers } from './consumers';
import { Identities } from './identities';
import { channelProjection, identityProjection } from './projections/projections';
import { Reactor, SERVICE_NAME } from './reactor';
import { Rpc } from './rpc';

/**
 * Start order matters for recovery: identities are imported, then the effects of already
 * committed events are replayed (reactor), then inputs are consumed and requests answered.
 */
@Injectable()
export class CoordinatorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('turn-coordinator');
  private timers?: DurableTimers;
  private projections: RunningConsumer[] = [];

  constructor(
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
    private readonly identities: Identities,
    private readonly reactor: Reactor,
    private readonly consumers: Consumers,
    private readonly rpc: Rpc,
    private readonly coherence: CacheCoherence,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
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
    this.timers = await DurableTimers.open(this.messaging, SERVICE_NAME);
    await this.reactor.start(this.timers);
    await this.timers.start();
    await this.consumers.start();
    this.projections = [
      await runProjection(this.messaging, this.orm.em, channelProjection),
      await runProjection(this.messaging, this.orm.em, identityProjection),
    ];
    this.rpc.serve();
    // Subscriptions are registered asynchronously: answer only once the server has them.
    await this.messaging.client.nc.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    // Each step on its own: the NATS connection may already be draining.
    const steps: (() => Promise<unknown>)[] = [
      async () => this.timers?.stop(),
      () => this.coherence.stop(),
      () => this.consumers.stop(),
      () => this.reactor.stop(),
      () => Promise.all(this.projections.splice(0).map((p) => p.stop())),
    ];
    for (const step of steps) {
      await step().catch((e: Error) => this.log.warn({ err: e.message }, 'shutdown step failed'));
    }
  }
}
