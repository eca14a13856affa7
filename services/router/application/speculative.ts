import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SpeculativeDue } from '@dirigent/contracts';
import { all, predicate, Reactor } from '@dirigent/reactor';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  speculativeCheckAt,
  speculativeConditions,
  type AgentPersona,
  type SpeculativeSettings,
  type SpeculativeSnapshot,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { Agents } from './agents';
import { ChannelActivity } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { Clock, ModelGateway, TurnCoordination } from './ports';
import { SPECULATIVE_DUE } from './schedule-followup';

interface Snapshot extends SpeculativeSnapshot {
  agent?: AgentPersona;
  /** The agent may speak on its own here (not a speaker of a managed channel). */
  unmanaged: boolean;
}

/**
 * Speculative turns: the reactor job `speculative-turn`, a composite trigger per channel
 * and agent — its durable timer AND the agent's own floor AND quiet, no recent bot turn, a
 * recent human, budget, a seeded chance. Each human message re-arms the timer for the
 * moment the time conditions can first hold; there is no periodic check.
 */
@Injectable()
export class SpeculativeTurns {
  private readonly settings: SpeculativeSettings;

  constructor(
    @Inject(SERVICE_CONFIG) config: RouterConfig,
    private readonly agents: Agents,
    private readonly activity: ChannelActivity,
    private readonly reactor: Reactor,
    private readonly models: ModelGateway,
    private readonly coordination: TurnCoordination,
    private readonly execute: ExecuteTurn,
    private readonly clock: Clock,
  ) {
    this.settings = { ...config.file.speculative };
    reactor.job<SpeculativeDue, Snapshot>({
      name: 'speculative-turn',
      trigger: all<Snapshot>(
        SPECULATIVE_DUE,
        predicate('unmanaged', (s) => s.unmanaged),
        speculativeConditions(this.settings),
      ),
      parse: SpeculativeDue.create,
      lane: (due) => due.channelId,
      snapshot: (due) => this.snapshot(due),
      run: (due, { lineage, snapshot }) =>
        this.execute.run({
          guildId: due.guildId,
          channelId: due.channelId,
          agent: snapshot.agent!,
          trigger: 'speculative',
          mentioned: false,
          seed: snapshot.seed,
          lineage,
        }),
    });
  }

  /** Re-arms the channel's timer; `parentId` is the decision on the message that did it. */
  async arm(
    agent: AgentPersona,
    guildId: string,
    channelId: string,
    parentId?: string,
  ): Promise<void> {
    if (!this.settings.enabled || agent.orchestrator) return;
    const key = `speculative:${agent.id}:${channelId}`;
    const at = speculativeCheckAt(this.activity.get(channelId), this.settings);
    if (at === null) return this.reactor.disarm(key);
    const data: SpeculativeDue = { guildId, channelId, agentId: agent.id };
    await this.reactor.arm(SPECULATIVE_DUE, key, at, data, parentId);
  }

  /** Read in the channel's lane; the budget is asked only when the agent may speak here. */
  private async snapshot(due: SpeculativeDue): Promise<Snapshot> {
    const agent = this.agents.get(due.agentId);
    const seed = randomUUID();
    let unmanaged = !!agent && !agent.orchestrator;
    if (agent && unmanaged) {
      const channel = await this.coordination.managed(due.channelId);
      unmanaged = !(channel.managed && channel.speakers.includes(agent.id));
    }
    const budgetFraction = unmanaged
      ? await this.models.budgetFraction(due.guildId).catch(() => undefined)
      : undefined;
    return {
      agent,
      unmanaged,
      seed,
      budgetFraction,
      activity: this.activity.get(due.channelId),
      now: this.clock.now(),
    };
  }
}
