import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { MemoryEventTypes, MemoryTimers, subject, type RedactionDue } from '@dirigent/contracts';
import { Reactor, timer } from '@dirigent/reactor';
import { Clock } from '@dirigent/service-kit';
import { RedactionStore, type RedactionJob } from '../adapters/postgres/redaction.store';

/** The trigger of the reactor job `redaction`: its durable timer (stream DIRIGENT_TIMER_FIRED). */
export const REDACTION = timer({
  subject: subject.timerFired('memory', MemoryTimers.redaction),
  type: MemoryEventTypes.redactionDue,
});

const timerKey = (jobId: string) => `redaction:${jobId}`;

/**
 * Where redaction jobs enter: recorded in Postgres (in the deleting transaction), then
 * handed to the reactor as a durable timer due at once. What a crash interrupts is taken
 * up again: the timer fires again until the job is done, and at start every pending job is
 * armed again (a job recorded just before a crash, whose timer was never armed).
 */
@Injectable()
export class RedactionQueue implements OnApplicationBootstrap {
  private readonly log = new Logger('memory:redaction');

  constructor(
    private readonly store: RedactionStore,
    private readonly reactor: Reactor,
    private readonly clock: Clock,
  ) {}

  /** Records the job, inside the transaction that deletes its messages. */
  record(job: RedactionJob): Promise<void> {
    return this.store.add(job);
  }

  /** Whether the job was recorded and is not done yet. */
  async pending(jobId: string): Promise<boolean> {
    return (await this.store.pending(jobId)) !== null;
  }

  /** Arms the job's timer, due now (after the commit that recorded it). */
  async arm(job: Pick<RedactionJob, 'id' | 'guildId'>, afterMs = 0): Promise<void> {
    const data: RedactionDue = { guildId: job.guildId, jobId: job.id };
    await this.reactor.arm(REDACTION, timerKey(job.id), this.clock.now() + afterMs, data);
  }

  /** Records and arms a job found outside a deleting transaction (a deletion that raced a summary). */
  async enqueue(job: RedactionJob): Promise<void> {
    await this.record(job);
    await this.arm(job);
  }

  /** Of the deleted messages, those no pending `forget` removed (its own job takes them). */
  notForgotten(guildId: string, messageIds: string[]): Promise<string[]> {
    return this.store.notForgotten(guildId, messageIds);
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      const pending = await this.store.allPending();
      for (const job of pending) await this.arm(job);
      if (pending.length) this.log.log(`${pending.length} pending redaction jobs taken up again`);
    } catch (e) {
      this.log.error(`pending redaction jobs not armed: ${(e as Error).message}`);
    }
  }
}
