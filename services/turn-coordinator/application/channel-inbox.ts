import { Inject, Injectable } from '@nestjs/common';
import { KeyedQueue } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { TurnCoordinatorConfig } from '../config';

/**
 * One queue per channel for everything that changes it (Discord events, turn completions,
 * timers), whichever consumer they arrive on: a channel's inputs run in order, channels in
 * parallel, at most DIRIGENT_COORDINATOR_CONCURRENCY channels at once. The cap is here, per
 * channel, and not on the consumers: an input waiting behind its own channel (e.g. one whose
 * members query Discord does not answer) must not take a place another channel needs.
 */
@Injectable()
export class ChannelInbox extends KeyedQueue {
  constructor(@Inject(SERVICE_CONFIG) config: TurnCoordinatorConfig) {
    super(config.DIRIGENT_COORDINATOR_CONCURRENCY);
  }
}

/**
 * The deliveries a channel-input consumer holds at once, for `n` channels handled at once:
 * every delivery it holds goes to the inbox straight away (so none waits unattended past the
 * short ack wait), and the inbox decides what runs.
 */
export function channelInputLimits(n: number): { concurrency: number; maxAckPending: number } {
  return { concurrency: n * 4, maxAckPending: n * 4 };
}
