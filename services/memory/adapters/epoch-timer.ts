import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MemoryEventTypes, subject, type EpochCloseDue } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { epochTimerKey } from '@dirigent/memory-domain';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import type { MemoryConfig } from '../config';

/** The subject the epoch-close timer fires on (stream DIRIGENT_TIMER_FIRED). */
export const EPOCH_CLOSE_SUBJECT = subject.timerFired('memory', 'epoch-close');

/**
 * One durable timer per channel, re-armed by every message; it survives restarts (KV).
 * A message that would move the alarm by less than a twentieth of the gap (at most a
 * minute) leaves it alone: the close re-arms an alarm that rang before the silence was
 * long enough, and a busy channel costs no KV write per message.
 */
@Injectable()
export class EpochTimer implements OnModuleInit, OnApplicationShutdown {
  private timers?: DurableTimers;
  private readonly armed = new Map<string, number>();
  private readonly slackMs: number;

  constructor(
    private readonly messaging: Messaging,
    @Inject(SERVICE_CONFIG) config: MemoryConfig,
  ) {
    this.slackMs = Math.min(config.DIRIGENT_EPOCH_GAP_MS / 20, 60_000);
  }

  async onModuleInit(): Promise<void> {
    this.timers = await DurableTimers.open(this.messaging, 'memory');
    await this.timers.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.timers?.stop();
  }

  /** Arms the channel's alarm; `force` re-arms it even within the slack (from the close). */
  async arm(guildId: string, channelId: string, dueAt: number, force = false): Promise<void> {
    const key = epochTimerKey(guildId, channelId);
    const armed = this.armed.get(key);
    if (!force && armed !== undefined && dueAt <= armed + this.slackMs) return;
    const data: EpochCloseDue = { guildId, channelId };
    this.armed.set(key, dueAt);
    await this.timers!.schedule(key, new Date(dueAt), {
      subject: EPOCH_CLOSE_SUBJECT,
      type: MemoryEventTypes.epochCloseDue,
      data,
    });
  }
}
