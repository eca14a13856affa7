import { Injectable, Logger } from '@nestjs/common';
import type { MessageCreated, ReactionChanged } from '@dirigent/contracts';
import {
  learnedWeight,
  reactionSignal,
  replySignal,
  type PersonaSignal,
} from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { Agents } from '../../application/agents';
import { Personas } from './personas';
import { RouterOutbox } from '../../application/clients';
import { PersonaStore, type PersonaMessage } from './ports';

/**
 * The learning loop: a human's positive or negative reaction to a built-in agent's message,
 * or a reply to it, moves that agent's persona weight for the disposition that produced the
 * message by `learning.rate`, within `learning.bounds`, as a new version (`cause:
 * 'learning'`) and a `persona.weights.adjusted` event. Each (message, signal) counts once,
 * whatever the redeliveries; `learning.enabled: false` records the signal and moves nothing.
 */
@Injectable()
export class PersonaLearning {
  private readonly log = new Logger('router:learning');

  constructor(
    private readonly agents: Agents,
    private readonly store: PersonaStore,
    private readonly personas: Personas,
    private readonly outbox: RouterOutbox,
    private readonly clock: Clock,
  ) {}

  /** A built-in agent's message was delivered: remember which disposition produced it. */
  delivered(d: Omit<PersonaMessage, 'at'>): Promise<void> {
    return this.store.recordMessage({ ...d, at: new Date(this.clock.now()) });
  }

  async reaction(e: ReactionChanged): Promise<void> {
    if (this.agents.userIds.has(e.userId)) return;
    const polarity = reactionSignal(e.emoji);
    if (polarity) await this.signal(e.messageId, `reaction:${e.userId}:${e.emoji}`, polarity);
  }

  async reply(m: MessageCreated): Promise<void> {
    if (m.authorIsBot || !m.replyToMessageId) return;
    await this.signal(m.replyToMessageId, `reply:${m.messageId}`, replySignal(m.content));
  }

  private async signal(messageId: string, signal: string, polarity: PersonaSignal) {
    const origin = await this.store.message(messageId);
    if (!origin || !this.agents.get(origin.agentId)) return;
    const id = origin.dispositionId;
    const r = await this.store.learn(
      { messageId, signal, agentId: origin.agentId, dispositionId: id, polarity },
      (active) => {
        const moved = learnedWeight(active.content, id, polarity);
        const current = active.content.dispositionWeights[id] ?? 1;
        if (!moved) return { from: current, to: current, write: null };
        return {
          ...moved,
          write: {
            content: {
              ...active.content,
              dispositionWeights: { ...active.content.dispositionWeights, [id]: moved.to },
            },
            cause: 'learning',
            causeId: messageId,
          },
        };
      },
      new Date(this.clock.now()),
    );
    if (!r.applied) {
      // Counted before: a redelivery after a crash between the commit and the events
      // publishes them again (same message ids, so JetStream keeps them once).
      if (r.version)
        await this.republish(origin.agentId, id, r.version, polarity, messageId, signal);
      return;
    }
    if (!r.written) return;
    this.log.log(
      { agentId: origin.agentId, dispositionId: id, from: r.from, to: r.to, messageId, signal },
      'persona weight adjusted',
    );
    await this.outbox.personaWeightsAdjusted({
      agentId: origin.agentId,
      version: r.written.version,
      dispositionId: id,
      from: r.from,
      to: r.to,
      polarity,
      cause: messageId,
      signal,
    });
    await this.personas.announce(r.previous, r.written);
  }

  private async republish(
    agentId: string,
    dispositionId: string,
    version: number,
    polarity: PersonaSignal,
    messageId: string,
    signal: string,
  ): Promise<void> {
    const [previous, written] = await Promise.all([
      this.store.version(agentId, version - 1),
      this.store.version(agentId, version),
    ]);
    if (!previous || !written) return;
    await this.outbox.personaWeightsAdjusted({
      agentId,
      version,
      dispositionId,
      from: previous.content.dispositionWeights[dispositionId] ?? 1,
      to: written.content.dispositionWeights[dispositionId] ?? 1,
      polarity,
      cause: messageId,
      signal,
    });
    await this.personas.announce(previous, written);
  }
}
