import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type RouterCandidate,
  type RouterReplayRequest,
  type RouterReplayResult,
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
    if (!d.inputs) {
      throw new DomainError(
        ErrorCodes.NOT_FOUND,
        `decision ${r.decisionId} was made before decisions kept their inputs`,
      );
    }
    const set = await this.dispositions.snapshot(d.inputs.dispositionSet);
    if (!set) {
      throw new DomainError(
        ErrorCodes.NOT_FOUND,
        `the disposition set ${d.inputs.dispositionSet} of decision ${r.decisionId} is not kept`,
      );
    }
    const again = routeFromInputs(set, d.inputs, d.seed);
    return {
      chosen: again.chosen,
      candidates: again.candidates,
      identical: choiceJson(again.candidates, again.chosen) === choiceJson(d.candidates, d.chosen),
      dimensions: again.dimensions,
    };
  }
}
