import { Inject, Injectable } from '@nestjs/common';
import {
  MemoryEventTypes,
  MemoryTimers,
  subject,
  type MessageCreated,
  type MomentsDue,
} from '@dirigent/contracts';
import { Reactor, timer } from '@dirigent/reactor';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { MemoryConfig } from '../config';

/** The trigger of a channel's moment batch when enough new messages arrived. */
export const MOMENTS = timer({
  subject: subject.timerFired('memory', MemoryTimers.moments),
  type: MemoryEventTypes.momentsDue,
});

/** Arms a channel's moment batch (`ExtractMoments`) once enough new messages are stored. */
@Injectable()
export class MomentBatches {
  private readonly counted = new Map<string, number>();

  constructor(
    private readonly reactor: Reactor,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {}

  /**
   * Counts stored messages per channel; at `DIRIGENT_MEMORY_MOMENT_BATCH` arms the
   * channel's batch (a durable timer due now). A count lost to a crash is made up when
   * the channel's epoch closes.
   */
  async count(events: MessageCreated[]): Promise<void> {
    for (const e of events) {
      const key = `${e.guildId}:${e.channelId}`;
      const n = (this.counted.get(key) ?? 0) + 1;
      if (n < this.config.DIRIGENT_MEMORY_MOMENT_BATCH) {
        this.counted.set(key, n);
        continue;
      }
      this.counted.delete(key);
      const data: MomentsDue = { guildId: e.guildId, channelId: e.channelId };
      await this.reactor.arm(MOMENTS, `moments:${key}`, this.clock.now(), data);
    }
  }
}
