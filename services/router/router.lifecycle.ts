import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { Reactor } from '@dirigent/reactor';
import { dispositionSetId } from '@dirigent/router-domain';
import { Agents } from './application/agents';
import { Personas } from './learning/application/personas';
import { TurnCoordination } from './application/clients';
import { DispositionStore } from './application/stores';
import type { RouterConfig } from './config';

/**
 * At start: the configuration's disposition upserts, the personas of agents that have none
 * (seeded once), the reactor's durable timers, the agents' identities.
 */
@Injectable()
export class RouterLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('router');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly dispositions: DispositionStore,
    private readonly reactor: Reactor,
    private readonly agents: Agents,
    private readonly coordination: TurnCoordination,
    private readonly personas: Personas,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const d of this.config.file.dispositions) await this.dispositions.upsert(d);
    await this.personas.seed();
    await this.reactor.start();
    // Agents with their own account are identities like any other: in channels whose
    // turns are managed they speak when granted. Not waited for: the coordinator may start later.
    for (const a of this.agents.all) {
      if (a.discordUserId && !a.orchestrator) {
        void this.coordination
          .register({ id: a.id, name: a.name, discordUserId: a.discordUserId })
          .catch(() => undefined);
      }
    }
    // What every decision reads, read before the consumers start: the dispositions (kept by
    // their content address) and each agent's active persona.
    const all = await this.dispositions.list();
    await Promise.all([
      this.dispositions.remember(dispositionSetId(all), all),
      ...this.agents.all.map((a) => this.personas.forTurn(a)),
    ]);
    this.log.log(
      `agents: ${this.config.file.agents.map((a) => a.id).join(', ')}; ${all.length} dispositions`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reactor.stop();
  }
}
