import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RouterEventTypes, subject, type SpeculativeDue } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import {
  speculativeCheckAt,
  speculativeDue,
  type AgentPersona,
  type SpeculativeSettings,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { Agents } from './agents';
import { ChannelActivity } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { Clock, ModelGateway, TurnCoordination } from './ports';
import { ROUTER_SERVICE, SPECULATIVE_TIMER } from './schedule-followup';

/**
 * Speculative turns: a composite trigger per channel and agent (quiet, no recent bot
 * turn, a recent human, budget, a seeded chance). Each message re-arms its durable timer
 * for the moment the time conditions can first hold; there is no periodic check.
 */
@Injectable()
export class SpeculativeTurns {
  private readonly log = new Logger('router:speculative');
  private readonly settings: SpeculativeSettings;

  constructor(
    @Inject(SERVICE_CONFIG) config: RouterConfig,
    private readonly agents: Agents,
    private readonly activity: ChannelActivity,
    private readonly timers: DurableTimers,
    private readonly models: ModelGateway,
    private readonly coordination: TurnCoordination,
    private readonly lanes: KeyedQueue,
    private readonly execute: ExecuteTurn,
    private readonly clock: Clock,
  ) {
    this.settings = { ...config.file.speculative };
  }

  async arm(agent: AgentPersona, guildId: string, channelId: string): Promise<void> {
    if (!this.settings.enabled || agent.orchestrator) return;
    const key = `speculative:${agent.id}:${channelId}`;
    const at = speculativeCheckAt(this.activity.get(channelId), this.settings);
    if (at === null) return this.timers.cancel(key);
    await this.timers.schedule(key, new Date(at), {
      subject: subject.timerFired(ROUTER_SERVICE, SPECULATIVE_TIMER),
      type: RouterEventTypes.speculativeDue,
      data: { guildId, channelId, agentId: agent.id },
    });
  }

  async fire(due: SpeculativeDue): Promise<void> {
    const agent = this.agents.get(due.agentId);
    if (!agent || agent.orchestrator) return;
    await this.lanes.run(due.channelId, async () => {
      const channel = await this.coordination.managed(due.channelId);
      if (channel.managed && channel.speakers.includes(agent.id)) return;
      const seed = randomUUID();
      const budgetFraction = await this.models.budgetFraction(due.guildId).catch(() => undefined);
      const verdict = speculativeDue(this.activity.get(due.channelId), this.settings, {
        now: this.clock.now(),
        budgetFraction,
        seed,
      });
      if (!verdict.fire) {
        this.log.debug?.(
          { channelId: due.channelId, reason: verdict.reason },
          'speculative turn not due',
        );
        return;
      }
      await this.execute.run({
        guildId: due.guildId,
        channelId: due.channelId,
        agent,
        trigger: 'speculative',
        mentioned: false,
        seed,
      });
    });
  }
}
