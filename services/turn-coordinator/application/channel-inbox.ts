import { Injectable } from '@nestjs/common';
import { KeyedQueue } from '@dirigent/messaging';

/**
 * One queue per channel for everything that changes it (Discord events, turn completions,
 * timers), whichever consumer they arrive on: a channel's inputs run in order, channels in
 * parallel.
 */
@Injectable()
export class ChannelInbox extends KeyedQueue {}
