import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { AgentPersona } from '@dirigent/router-domain';
import type { RouterConfig } from '../config';

/** The built-in agents of DIRIGENT_ROUTER_CONFIG. */
@Injectable()
export class Agents {
  readonly all: readonly AgentPersona[];
  /** Discord user ids of the agents that have their own account. */
  readonly userIds: ReadonlySet<string>;

  constructor(@Inject(SERVICE_CONFIG) config: RouterConfig) {
    this.all = config.personas();
    this.userIds = new Set(this.all.flatMap((a) => (a.discordUserId ? [a.discordUserId] : [])));
  }

  get(id: string): AgentPersona | undefined {
    return this.all.find((a) => a.id === id);
  }
}
