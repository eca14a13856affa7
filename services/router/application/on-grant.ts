import { Injectable } from '@nestjs/common';
import type { TurnGranted } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { isMentioned } from '@dirigent/router-domain';
import { Agents } from './agents';
import { ChannelActivity } from './channel-activity';
import { ExecuteTurn } from './execute-turn';

/**
 * A coordinator grant for a built-in agent: it decides on the channel's latest human
 * message (or an unprompted turn when it saw none) and completes the turn — with an empty
 * text when it chose silence — so the floor moves on.
 */
@Injectable()
export class OnGrant {
  private readonly decided = new Map<string, string>();

  constructor(
    private readonly agents: Agents,
    private readonly activity: ChannelActivity,
    private readonly lanes: KeyedQueue,
    private readonly execute: ExecuteTurn,
  ) {}

  /** `eventId`: the grant's envelope id, the cause in the decision's lineage. */
  async run(g: TurnGranted, eventId?: string): Promise<void> {
    const agent = this.agents.get(g.agentId);
    if (!agent || agent.orchestrator) return;
    await this.lanes.run(g.channelId, async () => {
      // The latest human message, once: a later grant in the same quiet stretch (the next
      // cycle) does not answer it again, nor the bots' echoes of it.
      const key = `${g.channelId}:${agent.id}`;
      const human = this.activity.lastHuman(g.channelId);
      const inbound = human && this.decided.get(key) !== human.messageId ? human : undefined;
      if (inbound) this.decided.set(key, inbound.messageId);
      await this.execute.run({
        guildId: g.guildId,
        channelId: g.channelId,
        agent,
        trigger: 'reactive',
        inbound,
        mentioned: inbound ? isMentioned(agent, inbound) : false,
        seed: `${g.turnId}:${agent.id}`,
        grant: { turnId: g.turnId },
        lineage: { job: 'granted-turn', trigger: 'event', causeId: eventId ?? g.turnId },
      });
    });
  }
}
