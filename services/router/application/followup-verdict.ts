import { Inject, Injectable } from '@nestjs/common';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { followupAbortReason, type AgentPersona, type FollowupBias } from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { Agents } from './agents';
import { ChannelHistory, TurnCoordination } from './clients';
import { DecisionLog, type FollowupRecord } from './stores';

/** How a due follow-up settles without a turn; undefined when it is to fire. */
export type FollowupSettlement =
  | { status: 'fired' | 'aborted'; reason?: string; decisionId?: string }
  | undefined;

/**
 * A due follow-up judged when it comes due: fired already (its decision is stored, a
 * SIGKILL came before the settle), aborted in a channel whose turns the coordinator manages,
 * or aborted by a rule over what the channel's durable history holds since it was scheduled.
 */
@Injectable()
export class FollowupVerdict {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly agents: Agents,
    private readonly decisions: DecisionLog,
    private readonly history: ChannelHistory,
    private readonly coordination: TurnCoordination,
    private readonly clock: Clock,
  ) {}

  async judge(f: FollowupRecord, agent: AgentPersona): Promise<FollowupSettlement> {
    const before = await this.decisions.ofFollowup(f.followupId);
    if (before) return { status: 'fired', decisionId: before.decisionId };
    const channel = await this.coordination.managed(f.channelId);
    if (channel.managed && channel.speakers.includes(agent.id))
      return { status: 'aborted', reason: 'managed-channel' };
    const reason = await this.abortReason(f, agent);
    return reason ? { status: 'aborted', reason } : undefined;
  }

  /**
   * The abort rules over what the channel's durable history holds since the follow-up was
   * scheduled: a reply seen just before a SIGKILL, or sent while the router was down, counts.
   */
  private async abortReason(f: FollowupRecord, agent: AgentPersona) {
    const after = f.createdAt.getTime();
    const { messages, typing } = await this.history.since(f.guildId, f.channelId, after);
    const others = typing.filter((t) => !this.agents.userIds.has(t.userId));
    return followupAbortReason({
      botMessageIds: f.botMessageIds,
      agentUserId: agent.discordUserId,
      since: messages.filter((m) => m.at > after),
      // Typing before the bot's turn was the question it answered, not a new thought.
      othersTypingAt: others.length ? Math.max(...others.map((t) => t.at)) : undefined,
      now: this.clock.now(),
      movedOnAfter: this.config.file.followups.movedOnAfter,
      bias: f.bias as FollowupBias,
      midThoughtMs: this.config.file.followups.midThoughtMs,
    });
  }
}
