import { Injectable } from '@nestjs/common';
import { RouterEventTypes, subject, type RouterDecision } from '@dirigent/contracts';
import { Reactor, timer } from '@dirigent/reactor';
import { FollowupStore, RouterOutbox, Clock } from './ports';

export const ROUTER_SERVICE = 'router';
/** The router's durable timers (`dirigent.timer.fired.router.<name>`), triggers of its reactor jobs. */
export const FOLLOWUP_DUE = timer({
  subject: subject.timerFired(ROUTER_SERVICE, 'followup'),
  type: RouterEventTypes.followupDue,
});
export const SPECULATIVE_DUE = timer({
  subject: subject.timerFired(ROUTER_SERVICE, 'speculative'),
  type: RouterEventTypes.speculativeDue,
});

/**
 * Stores a rolled follow-up and arms its durable timer (it survives restarts), naming the
 * decision that scheduled it as the timer's cause: the follow-up's decision shows it.
 */
@Injectable()
export class ScheduleFollowup {
  constructor(
    private readonly store: FollowupStore,
    private readonly reactor: Reactor,
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
    await this.reactor.arm(
      FOLLOWUP_DUE,
      `followup:${f.followupId}`,
      new Date(f.dueAt),
      { followupId: f.followupId, guildId: d.guildId, channelId: d.channelId },
      d.decisionId,
    );
    await this.outbox.followup(d.guildId, d.channelId, {
      followupId: f.followupId,
      parentDecisionId: d.decisionId,
      bias: f.bias,
      dueAt: f.dueAt,
      status: 'scheduled',
    });
  }
}
