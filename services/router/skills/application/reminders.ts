import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  ReminderDue,
  RouterEventTypes,
  subject,
  type ReminderCancelRequest,
  type ReminderCancelResult,
  type ReminderStatus,
  type ReminderView,
  type RemindersListRequest,
  type RemindersListResult,
} from '@dirigent/contracts';
import { Reactor, timer } from '@dirigent/reactor';
import type { DiscordActions, ReminderBook, ReminderRequest } from '@dirigent/skills';
import { Clock } from '@dirigent/service-kit';
import { ROUTER_SERVICE } from '../../application/schedule-followup';

/** A reminder's durable timer (`dirigent.timer.fired.router.reminder`). */
export const REMINDER_DUE = timer({
  subject: subject.timerFired(ROUTER_SERVICE, 'reminder'),
  type: RouterEventTypes.reminderDue,
});

/** `router_reminders`: the reminders' durable state. */
export abstract class ReminderStore {
  /** Stores a new reminder; false when its id is already stored. */
  abstract create(r: ReminderRequest): Promise<boolean>;
  abstract get(reminderId: string): Promise<ReminderView | null>;
  /** Scheduled reminders (of a guild, of a member), soonest first. */
  abstract scheduled(guildId?: string, userId?: string): Promise<ReminderView[]>;
  /** Moves a scheduled reminder to `status`; false when it was no longer scheduled. */
  abstract settle(
    reminderId: string,
    status: Exclude<ReminderStatus, 'scheduled'>,
    at: Date,
  ): Promise<boolean>;
}

/** Where a due reminder is posted: the bot's post, de-duplicated by its id. */
export abstract class ReminderPoster {
  abstract post: DiscordActions['post'];
}

const timerKey = (reminderId: string) => `reminder:${reminderId}`;

/** What the channel reads when a reminder comes due. */
export function reminderText(r: Pick<ReminderView, 'target' | 'userId' | 'text'>): string {
  return r.target === 'me' && r.userId
    ? `⏰ <@${r.userId}>, you asked me to remind you: ${r.text}`
    : `⏰ Reminder for this channel: ${r.text}`;
}

/**
 * The `remind` skill's durable side: a reminder is a row of `router_reminders` (listed and
 * cancelled from there) and a timer on the router's durable timers; the reactor job
 * `reminder` posts it once when due (the post's id de-duplicates a redelivery after a
 * SIGKILL between the post and the row's update). At start every scheduled reminder's timer
 * is armed again (a kill between its row and its timer).
 */
@Injectable()
export class Reminders implements ReminderBook, OnApplicationBootstrap {
  constructor(
    private readonly store: ReminderStore,
    private readonly reactor: Reactor,
    private readonly poster: ReminderPoster,
    private readonly clock: Clock,
  ) {
    reactor.job<ReminderDue>({
      name: 'reminder',
      trigger: REMINDER_DUE,
      parse: ReminderDue.create,
      lane: (d) => timerKey(d.reminderId),
      run: (d) => this.fire(d.reminderId),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const r of await this.store.scheduled()) await this.arm(r);
  }

  private arm(r: Pick<ReminderView, 'reminderId' | 'guildId' | 'channelId' | 'dueAt'>) {
    return this.reactor.arm(REMINDER_DUE, timerKey(r.reminderId), new Date(r.dueAt), {
      reminderId: r.reminderId,
      guildId: r.guildId,
      channelId: r.channelId,
    });
  }

  /** Stores the reminder and arms its timer; the same id again changes nothing settled. */
  async schedule(r: ReminderRequest): Promise<void> {
    await this.store.create(r);
    const stored = await this.store.get(r.reminderId);
    if (stored?.status === 'scheduled') await this.arm(stored);
  }

  /** Posts a due reminder once: a cancelled or fired one is left alone. */
  async fire(reminderId: string): Promise<void> {
    const r = await this.store.get(reminderId);
    if (!r || r.status !== 'scheduled') return;
    await this.poster.post(r.guildId, r.channelId, reminderText(r), `reminder-${r.reminderId}`);
    await this.store.settle(r.reminderId, 'fired', new Date(this.clock.now()));
  }

  /** `Subjects.router.remindersList`. */
  async list(q: RemindersListRequest): Promise<RemindersListResult> {
    return { reminders: await this.store.scheduled(q.guildId, q.userId) };
  }

  /** `Subjects.router.reminderCancel`: a settled reminder answers with its status. */
  async cancel(q: ReminderCancelRequest): Promise<ReminderCancelResult> {
    const r = await this.store.get(q.reminderId);
    if (!r) throw new DomainError(ErrorCodes.NOT_FOUND, `no reminder ${q.reminderId}`);
    if (r.status === 'scheduled') {
      await this.store.settle(r.reminderId, 'cancelled', new Date(this.clock.now()));
      await this.reactor.disarm(timerKey(r.reminderId));
    }
    const now = await this.store.get(r.reminderId);
    return { reminderId: r.reminderId, status: now?.status ?? 'cancelled' };
  }
}
