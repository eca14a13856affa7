import { Injectable, Logger } from '@nestjs/common';
import type { TurnGranted } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { isMentioned } from '@dirigent/router-domain';
import { Agents } from './agents';
import { ChannelActivity } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { ChannelHistory } from './clients';
import { DecisionLog } from './stores';

/** How long a grant waits for the channel's newest message to reach this router. */
export const CATCH_UP_MS = 3000;

/**
 * A coordinator grant for a built-in agent: it decides on the channel's latest human
 * message (or an unprompted turn when it saw none) and completes the turn — with an empty
 * text when it chose silence — so the floor moves on.
 *
 * The grant and the message that caused it come by two consumers: the coordinator's grant
 * can reach the router before the router's own consumer has delivered the message (a busy
 * consumer, a redelivery). So the turn first reads the channel's newest message in the
 * stream (one get) and waits, up to {@link CATCH_UP_MS}, until this process has seen it:
 * "Dit, pin that" is what Dit's turn answers, not the message before it.
 */
@Injectable()
export class OnGrant {
  private readonly log = new Logger('router:grants');
  private readonly decided = new Map<string, string>();

  constructor(
    private readonly agents: Agents,
    private readonly activity: ChannelActivity,
    private readonly lanes: KeyedQueue,
    private readonly execute: ExecuteTurn,
    private readonly history: ChannelHistory,
    private readonly decisions: DecisionLog,
  ) {}

  /** `eventId`: the grant's envelope id, the cause in the decision's lineage. */
  async run(g: TurnGranted, eventId?: string): Promise<void> {
    const agent = this.agents.get(g.agentId);
    if (!agent || agent.orchestrator) return;
    await this.lanes.run(g.channelId, async () => {
      await this.catchUp(g);
      // The latest human message, once: a later grant in the same quiet stretch (the next
      // cycle) does not answer it again, nor the bots' echoes of it.
      // Nor one the agent answered on another path (a reactive turn while the channel's
      // state was unknown) or before a restart: the decision log says so.
      const key = `${g.channelId}:${agent.id}`;
      const human = this.activity.lastHuman(g.channelId);
      const inbound =
        human &&
        this.decided.get(key) !== human.messageId &&
        !(await this.decisions.decidedOn(human.messageId, agent.id))
          ? human
          : undefined;
      if (human) this.decided.set(key, human.messageId);
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

  private async catchUp(g: TurnGranted): Promise<void> {
    try {
      const newest = await this.history.newest(g.guildId, g.channelId);
      if (!newest) return;
      const { messageId, at } = newest;
      const came = await this.activity.caughtUp(g.guildId, g.channelId, messageId, at, CATCH_UP_MS);
      if (!came) this.log.warn({ turnId: g.turnId, messageId }, 'newest message not seen in time');
    } catch (e) {
      // Decided on what this process has seen, as without the check.
      this.log.warn({ err: (e as Error).message, turnId: g.turnId }, 'newest message unread');
    }
  }
}
