import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type RouterCandidate,
  type RouterDecision,
  type RouterReplayRequest,
  type RouterReplayResult,
  type RouterWhatIfRequest,
  type RouterWhatIfResult,
} from '@dirigent/contracts';
import { routeFromInputs } from '@dirigent/router-domain';
import { DecisionLog, DispositionStore } from './stores';

/** The choice as bytes: candidates (in order, fixed keys) and the chosen id. */
export const choiceJson = (candidates: readonly RouterCandidate[], chosen: string) =>
  JSON.stringify({
    candidates: candidates.map((c) => ({ dispositionId: c.dispositionId, score: c.score })),
    chosen,
  });

/**
 * `Subjects.router.replay`: recomputes a stored decision from its `inputs`, its seed and the
 * disposition set its scores read (kept by content address), through the same pure path
 * the live decision took; `identical` compares the candidates and choice byte for byte.
 */
@Injectable()
export class ReplayDecision {
  constructor(
    private readonly decisions: DecisionLog,
    private readonly dispositions: DispositionStore,
  ) {}

  async run(r: RouterReplayRequest): Promise<RouterReplayResult> {
    const d = await this.decisions.get(r.decisionId);
    if (!d) throw new DomainError(ErrorCodes.NOT_FOUND, `no decision ${r.decisionId}`);
    return this.replay(d, r.weights);
  }

  /**
   * `Subjects.router.whatif`: the guild's last `last` decisions (of `agentId`, if given)
   * replayed under the candidate weights: how many change, and how often each disposition
   * is chosen before and after. Decisions that kept no inputs are left out.
   */
  async whatIf(r: RouterWhatIfRequest): Promise<RouterWhatIfResult> {
    const all = await this.decisions.list({
      guildId: r.guildId,
      ...(r.agentId ? { agentId: r.agentId } : {}),
      limit: r.last,
    });
    const out: RouterWhatIfResult = { decisions: 0, changed: 0, byDisposition: {} };
    const count = (id: string, k: 'before' | 'after') => {
      const e = (out.byDisposition[id] ??= { before: 0, after: 0 });
      e[k]++;
    };
    for (const d of all) {
      if (!d.inputs) continue;
      const again = await this.replay(d, r.weights).catch(() => null);
      if (!again) continue;
      out.decisions++;
      if (again.chosen !== d.chosen) out.changed++;
      count(d.chosen, 'before');
      count(again.chosen, 'after');
    }
    return out;
  }

  private async replay(
    d: RouterDecision,
    weights?: Record<string, number>,
  ): Promise<RouterReplayResult> {
    if (!d.inputs) {
      throw new DomainError(
        ErrorCodes.NOT_FOUND,
        `decision ${d.decisionId} was made before decisions kept their inputs`,
      );
    }
    const set = await this.dispositions.snapshot(d.inputs.dispositionSet);
    if (!set) {
      throw new DomainError(
        ErrorCodes.NOT_FOUND,
        `the disposition set ${d.inputs.dispositionSet} of decision ${d.decisionId} is not kept`,
      );
    }
    const inputs = weights ? { ...d.inputs, agent: { ...d.inputs.agent, weights } } : d.inputs;
    const again = routeFromInputs(set, inputs, d.seed);
    return {
      chosen: again.chosen,
      candidates: again.candidates,
      identical: choiceJson(again.candidates, again.chosen) === choiceJson(d.candidates, d.chosen),
      dimensions: again.dimensions,
    };
  }
}
