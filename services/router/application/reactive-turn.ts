import { Injectable } from '@nestjs/common';
import type { MessageCreated } from '@dirigent/contracts';
import { preflight, type AgentPersona } from '@dirigent/router-domain';
import type { SeenMessage } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { TurnCoordination } from './clients';
import { DecisionLog } from './stores';
import { ReadTheRoom } from './read-the-room';
import { SpeculativeTurns } from './speculative';

/**
 * An agent's own turn on a message (run in the channel's lane): none where the coordinator
 * manages the agent's turns or a grant already answered it, none when the preflight says so;
 * otherwise the turn, and a human message re-arms the agent's speculative timer.
 */
@Injectable()
export class ReactiveTurn {
  constructor(
    private readonly decisions: DecisionLog,
    private readonly coordination: TurnCoordination,
    private readonly execute: ExecuteTurn,
    private readonly speculative: SpeculativeTurns,
    private readonly room: ReadTheRoom,
  ) {}

  /** A message came in: what its turns will read of the room is read now (`ReadTheRoom.prefetch`). */
  prepare(seen: SeenMessage): void {
    this.room.prefetch(seen);
  }

  async run(
    agent: AgentPersona,
    m: MessageCreated,
    seen: SeenMessage,
    resumed: boolean,
  ): Promise<void> {
    if (resumed && (await this.decisions.decidedOn(m.messageId, agent.id))) {
      // Killed between the decision and the arming: arm again (one timer per agent and
      // channel, so arming twice is harmless).
      if (!m.authorIsBot) await this.speculative.arm(agent, m.guildId, m.channelId, seen.at);
      return;
    }
    const channel = await this.coordination.managed(m.channelId);
    if (channel.managed && channel.speakers.includes(agent.id)) return;
    // A grant already answered it (this turn waited in the lane behind that one).
    if (!resumed && (await this.decisions.decidedOn(m.messageId, agent.id))) return;
    const verdict = preflight(agent, seen, { managedChannel: channel.managed });
    if (!verdict.proceed) return;
    const decision = await this.execute.run({
      guildId: m.guildId,
      channelId: m.channelId,
      agent,
      trigger: 'reactive',
      inbound: seen,
      mentioned: verdict.mentioned,
      seed: `${m.messageId}:${agent.id}`,
      lineage: { job: 'reactive-turn', trigger: 'event', causeId: seen.eventId ?? m.messageId },
    });
    if (!m.authorIsBot)
      await this.speculative.arm(agent, m.guildId, m.channelId, seen.at, decision.decisionId);
  }
}
