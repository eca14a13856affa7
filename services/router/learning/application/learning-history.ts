import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type LearningHistoryRequest,
  type LearningHistoryResult,
} from '@dirigent/contracts';
import { effectiveWeight } from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { Agents } from '../../application/agents';
import { EngagementStore, LearningSteps, PersonaStore } from './ports';

const DAY_MS = 86_400_000;
/** Steps a history answers with at most (the newest of the period). */
const MAX_STEPS = 2000;

/**
 * `admin.learning.history`: the control page's engagement view of a guild's agent. Per
 * context class and disposition the turns that posted and what people made of them (from
 * the stored signals), and each `learning.adjusted` step with the effective weight it left,
 * read under the persona's current baseline and bounds.
 */
@Injectable()
export class LearningHistory {
  constructor(
    private readonly agents: Agents,
    private readonly personas: PersonaStore,
    private readonly engagement: EngagementStore,
    private readonly steps: LearningSteps,
    private readonly clock: Clock,
  ) {}

  async run(r: LearningHistoryRequest): Promise<LearningHistoryResult> {
    const p = this.agents.get(r.agentId) ? await this.personas.active(r.agentId) : null;
    if (!p) throw new DomainError(ErrorCodes.NOT_FOUND, `no persona for agent ${r.agentId}`);
    const since = new Date(this.clock.now() - (r.days ?? 30) * DAY_MS);
    const [engagement, steps] = await Promise.all([
      this.engagement.engagement(r.guildId, r.agentId, since),
      this.steps.since(r.guildId, r.agentId, since, MAX_STEPS),
    ]);
    const { dispositionWeights: baseline, learning } = p.content;
    return {
      baseline: { ...baseline },
      bounds: learning.bounds,
      engagement,
      steps: steps.map((e) => ({
        at: e.at,
        contextClass: e.contextClass,
        dispositionId: e.dispositionId,
        signal: e.cause.signal,
        delta: e.delta,
        adjustment: e.adjustment,
        effective: effectiveWeight(baseline[e.dispositionId] ?? 1, e.adjustment, learning.bounds),
      })),
    };
  }
}
