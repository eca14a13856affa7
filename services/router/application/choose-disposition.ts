import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { contextClass, routeFromInputs, SILENT_FALLBACK } from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { PersonaLearning, type Learned } from '../learning/application/persona-learning';
import { Personas } from '../learning/application/personas';
import { ModelGateway } from './clients';
import { ReadTheRoom } from './read-the-room';
import { tieBreak } from './tie-break';
import { ms, type Choice, type TurnRequest } from './turn-record';
import type { DecisionInputs } from '@dirigent/router-domain';

/**
 * A turn's choice: the agent's active persona (its gates, weights and the synthesizer's
 * constraints), the room read, the seeded route from those inputs, then the optional model
 * tie-break (kept in the inputs, so a replay makes the same choice).
 */
@Injectable()
export class ChooseDisposition {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly personas: Personas,
    private readonly learning: PersonaLearning,
    private readonly room: ReadTheRoom,
    private readonly models: ModelGateway,
  ) {}

  /** The request with the agent's active persona, and what it chose. */
  async run(turn: TurnRequest): Promise<{ r: TurnRequest; choice: Choice }> {
    const r = { ...turn, agent: await this.personas.forTurn(turn.agent) };
    return { r, choice: await this.choose(r) };
  }

  private async choose(r: TurnRequest): Promise<Choice> {
    const gathering = performance.now();
    // What the guild learned is read with the room (the mood it is taken for comes after).
    const {
      inputs,
      dispositions: all,
      learned,
    } = await this.room.gather(
      {
        ...r,
        ...(r.interruption
          ? {
              interruption: {
                action: r.interruption.action,
                parentDispositionId: r.interruption.parentDispositionId,
              },
            }
          : {}),
      },
      {
        read: this.learning.learnedOf(r.guildId, r.agent.id),
        known: () => this.learning.knownLearned(r.guildId, r.agent.id),
      },
    );
    this.learned(inputs, learned!);
    const deciding = performance.now();
    let routed = routeFromInputs(all, inputs, r.seed);
    let decideMs = performance.now() - deciding;
    const classified = await tieBreak(this.models, this.config, r, all, routed);
    if (classified && classified.id !== routed.chosen) {
      inputs.tieBreak = classified.id;
      const again = performance.now();
      routed = routeFromInputs(all, inputs, r.seed);
      decideMs += performance.now() - again;
    }
    const timings = { gatherMs: ms(deciding - gathering), decideMs: ms(decideMs) };
    const chosen = all.find((x) => x.id === routed.chosen) ?? SILENT_FALLBACK;
    // The lens the turn reads through (its own, or swapped: see `lensSwap`).
    const disposition = { ...chosen, contextStrategy: routed.dimensions.contextStrategy };
    return { inputs, routed, disposition, classified, timings };
  }

  /**
   * The room's mood on the inputs, and the agent's weights there as the guild learned
   * them (baseline + adjustment): kept on the decision, so its replay reads the same.
   */
  private learned(inputs: DecisionInputs, learned: Learned): void {
    const cls = contextClass(inputs);
    inputs.contextClass = cls;
    const weights = this.learning.effectiveIn(learned, cls, inputs.agent.weights ?? {});
    const { weights: _baseline, ...agent } = inputs.agent;
    inputs.agent = Object.keys(weights).length ? { ...agent, weights } : agent;
  }
}
