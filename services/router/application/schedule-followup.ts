import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { RouterEventTypes, subject, type RouterDecision } from '@dirigent/contracts';
import { Reactor, timer } from '@dirigent/reactor';
import { Clock } from '@dirigent/service-kit';
import { RouterOutbox } from './clients';
import { FollowupStore } from './stores';

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
 * decision that scheduled it as the timer's cause: the follow-up's decision shows it. It is
 * stored before the turn's beats are sent (a SIGKILL during them keeps it) and told their
 * ids after; at start every follow-up still scheduled has its timer armed again (a kill
 * between the row and its timer).
 */
@Injectable()
export class ScheduleFollowup implements OnApplicationBootstrap {
  constructor(
    private readonly store: FollowupStore,
    private readonly reactor: Reactor,
    private readonly outbox: RouterOutbox,
    private readonly clock: Clock,
  ) {}

  /** Arming replaces a key's pending timer: arming a follow-up again is harmless. */
  async onApplicationBootstrap(): Promise<void> {
    for (const f of await this.store.scheduled()) {
      await this.reactor.arm(
        FOLLOWUP_DUE,
        `followup:${f.followupId}`,
        f.dueAt,
        { followupId: f.followupId, guildId: f.guildId, channelId: f.channelId },
        f.parentDecisionId,
      );
    }
  }

  /**
   * The beats of the turn that scheduled it were sent (a reply to one aborts it): the
   * follow-up is announced `scheduled` now, with what was said before it.
   */
  async sent(
    d: RouterDecision,
    f: { followupId: string; bias: string; dueAt: string },
    botMessageIds: string[],
  ): Promise<void> {
    if (botMessageIds.length) await this.store.setBotMessages(f.followupId, botMessageIds);
    await this.outbox.followup(d.guildId, d.channelId, {
      followupId: f.followupId,
      parentDecisionId: d.decisionId,
      bias: f.bias,
      dueAt: f.dueAt,
      status: 'scheduled',
    });
  }

  /** Stores the follow-up and arms its timer (before the turn's beats are sent). */
  async run(d: RouterDecision, f: { followupId: string; bias: string; dueAt: string }) {
    await this.store.create({
      followupId: f.followupId,
      parentDecisionId: d.decisionId,
      guildId: d.guildId,
      channelId: d.channelId,
      agentId: d.agentId,
      bias: f.bias,
      dueAt: new Date(f.dueAt),
      status: 'scheduled',
      botMessageIds: [],
      createdAt: new Date(this.clock.now()),
    });
    await this.reactor.arm(
      FOLLOWUP_DUE,
      `followup:${f.followupId}`,
      new Date(f.dueAt),
      { followupId: f.followupId, guildId: d.guildId, channelId: d.channelId },
      d.decisionId,
    );
  }
}
