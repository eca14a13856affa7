import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MemoryEventTypes, MemoryTimers, subject, type EpochCloseDue } from '@dirigent/contracts';
import { epochTimerKey } from '@dirigent/memory-domain';
import { Reactor, timer } from '@dirigent/reactor';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { runsJobs, type MemoryConfig } from '../config';

/** The trigger of the reactor job `epoch-close`: its durable timer (stream DIRIGENT_TIMER_FIRED). */
export const EPOCH_CLOSE = timer({
  subject: subject.timerFired('memory', MemoryTimers.epochClose),
  type: MemoryEventTypes.epochCloseDue,
});
export const EPOCH_CLOSE_SUBJECT = EPOCH_CLOSE.subject;

/**
 * One durable timer per channel, re-armed by every message; it survives restarts (KV).
 * A message that would move the alarm by less than a twentieth of the gap (at most a
 * minute) leaves it alone: the close re-arms an alarm that rang before the silence was
 * long enough, and a busy channel costs no KV write per message. It also starts and stops
 * memory's reactor (its timers).
 */
@Injectable()
export class EpochTimer implements OnModuleInit, OnApplicationShutdown {
  private readonly armed = new Map<string, number>();
  private readonly slackMs: number;
  private readonly gapMs: number;
  private readonly fires: boolean;

  constructor(
    private readonly reactor: Reactor,
    @Inject(SERVICE_CONFIG) config: MemoryConfig,
  ) {
    this.gapMs = config.DIRIGENT_EPOCH_GAP_MS;
    this.slackMs = Math.min(this.gapMs / 20, 60_000);
    // A `queries` replica arms timers (a forget's redaction) but leaves firing them to `jobs`.
    this.fires = runsJobs(config.DIRIGENT_MEMORY_ROLE ?? 'all');
  }

  async onModuleInit(): Promise<void> {
    if (this.fires) await this.reactor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.fires) await this.reactor.stop();
  }

  /** Arms the channel's alarm for the gap after its last message (at `lastAt`). */
  armAfter(guildId: string, channelId: string, lastAt: number): Promise<void> {
    return this.arm(guildId, channelId, lastAt + this.gapMs);
  }

  /** Arms the channel's alarm; `force` re-arms it even within the slack (from the close). */
  async arm(guildId: string, channelId: string, dueAt: number, force = false): Promise<void> {
    const key = epochTimerKey(guildId, channelId);
    const armed = this.armed.get(key);
    if (!force && armed !== undefined && dueAt <= armed + this.slackMs) return;
    const data: EpochCloseDue = { guildId, channelId };
    this.armed.set(key, dueAt);
    await this.reactor.arm(EPOCH_CLOSE, key, dueAt, data);
  }
}
