import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { SpeculativeDue } from '@dirigent/contracts';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type {
  AgentPersona,
  ChannelActivity as ChannelActivityView,
  SpeculativeSettings,
  SpeculativeSnapshot,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { Agents } from './agents';
import { ChannelHistory, ModelGateway, TurnCoordination } from './clients';

export interface Snapshot extends SpeculativeSnapshot {
  agent?: AgentPersona;
  /** The agent may speak on its own here (not a speaker of a managed channel). */
  unmanaged: boolean;
}

/**
 * What a due speculative turn's predicates read: the agent and whether it may speak on its
 * own in the channel, a fresh seed, the guild's budget fraction, and the channel's activity
 * as the durable streams hold it, whatever this process saw.
 */
@Injectable()
export class SpeculativeRoom {
  private readonly settings: SpeculativeSettings;

  constructor(
    @Inject(SERVICE_CONFIG) config: RouterConfig,
    private readonly agents: Agents,
    private readonly history: ChannelHistory,
    private readonly coordination: TurnCoordination,
    private readonly models: ModelGateway,
    private readonly clock: Clock,
  ) {
    this.settings = { ...config.file.speculative };
  }

  /** Read in the channel's lane; the budget is asked only when the agent may speak here. */
  async read(due: SpeculativeDue): Promise<Snapshot> {
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
    const now = this.clock.now();
    const snapshot = {
      agent,
      unmanaged,
      seed,
      budgetFraction,
      activity: await this.durableActivity(due, now),
      now,
    };
    return snapshot;
  }

  /**
   * The channel as the durable streams hold it, whatever this process saw: the messages
   * since the arming human one (each later human message re-arms the timer) or the quiet
   * window, whichever is shorter, and the agents' turns of the last `minSinceBotTurnMs`.
   */
  private async durableActivity(due: SpeculativeDue, now: number): Promise<ChannelActivityView> {
    const humanAt = due.humanAt ? Date.parse(due.humanAt) : undefined;
    const from = Math.max(humanAt ?? 0, now - this.settings.quietMs);
    const [{ messages }, turns] = await Promise.all([
      this.history.since(due.guildId, due.channelId, from),
      this.history.botTurnsSince(due.guildId, due.channelId, now - this.settings.minSinceBotTurnMs),
    ]);
    const max = (xs: number[]) => (xs.length ? Math.max(...xs) : undefined);
    const humans = messages.filter((m) => !m.authorIsBot).map((m) => m.at);
    const own = messages.filter((m) => this.agents.userIds.has(m.authorId)).map((m) => m.at);
    const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);
    return {
      lastHumanAt: max(defined([humanAt, ...humans])),
      lastMessageAt: max(defined([humanAt, ...messages.map((m) => m.at)])),
      lastBotTurnAt: max([...turns, ...own]),
    };
  }
}
