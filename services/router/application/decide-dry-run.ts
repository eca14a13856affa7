import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type RouterDecideRequest,
  type RouterDecideResult,
} from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { isMentioned, route } from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { Agents } from './agents';
import { DispositionStore, ModelGateway } from './ports';

/**
 * `Subjects.router.decide`: the routing of a hypothetical message, without side effects.
 * The same input and seed give the same choice; without a seed one is drawn and returned.
 */
@Injectable()
export class DecideDryRun {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly agents: Agents,
    private readonly dispositions: DispositionStore,
    private readonly models: ModelGateway,
  ) {}

  async run(r: RouterDecideRequest): Promise<RouterDecideResult> {
    const agent = r.agentId ? this.agents.get(r.agentId) : this.agents.all[0];
    if (!agent) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, `unknown agent ${r.agentId}`, [
        {
          field: 'agentId',
          messages: [`agentId must be one of: ${this.agents.all.map((a) => a.id).join(', ')}`],
        },
      ]);
    }
    const [all, budgetFraction] = await Promise.all([
      this.dispositions.list(),
      this.models.budgetFraction(r.guildId).catch(() => undefined),
    ]);
    const d = route(all, {
      trigger: r.unprompted ? 'speculative' : 'reactive',
      agent,
      content: r.content,
      mentioned: r.unprompted
        ? false
        : isMentioned(agent, { content: r.content ?? '', mentions: r.mentions }),
      budgetFraction,
      seed: r.seed ?? randomUUID(),
      temperature: this.config.temperature,
    });
    return { candidates: d.candidates, chosen: d.chosen, seed: d.seed, dimensions: d.dimensions };
  }
}
