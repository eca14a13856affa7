import { Injectable } from '@nestjs/common';
import { RouterEventTypes, subject, type RouterDecision } from '@dirigent/contracts';
import { DurableTimers } from '@dirigent/timers';
import { FollowupStore, RouterOutbox, Clock } from './ports';

export const ROUTER_SERVICE = 'router';
export const FOLLOWUP_TIMER = 'followup';
export const SPECULATIVE_TIMER = 'speculative';

/** Stores a rolled follow-up and arms its durable timer (it survives restarts). */
@Injectable()
export class ScheduleFollowup {
  constructor(
    private readonly store: FollowupStore,
    private readonly timers: DurableTimers,
    private readonly outbox: RouterOutbox,
    private readonly clock: Clock,
  ) {}

  async run(
    d: RouterDecision,
    f: { followupId: string; bias: string; dueAt: string },
    botMessageIds: string[],
  ): Promise<void> {
    await this.store.create({
      followupId: f.followupId,
      parentDecisionId: d.decisionId,
      guildId: d.guildId,
      channelId: d.channelId,
      agentId: d.agentId,
      bias: f.bias,
      dueAt: new Date(f.dueAt),
      status: 'scheduled',
      botMessageIds,
      createdAt: new Date(this.clock.now()),
    });
    await this.timers.schedule(`followup:${f.followupId}`, new Date(f.dueAt), {
      subject: subject.timerFired(ROUTER_SERVICE, FOLLOWUP_TIMER),
      type: RouterEventTypes.followupDue,
      data: { followupId: f.followupId, guildId: d.guildId, channelId: d.channelId },
    });
    await this.outbox.followup(d.guildId, d.channelId, {
      followupId: f.followupId,
      parentDecisionId: d.decisionId,
      bias: f.bias,
      dueAt: f.dueAt,
      status: 'scheduled',
    });
  }
}
