import { Injectable } from '@nestjs/common';
import { Clock } from '@dirigent/service-kit';
import { DEFAULT_DECISION, DEFAULT_TOPIC_SPLIT, HUMANS_WINDOW_MS } from '@dirigent/router-domain';
import { ChannelHistory, type HistoryMessage } from './clients';

/** The look back of a channel's talk read after a start: the longest its readers need. */
export const TALK_WINDOW_MS = Math.max(
  HUMANS_WINDOW_MS,
  DEFAULT_TOPIC_SPLIT.windowMs,
  DEFAULT_DECISION.windowMs,
);

/**
 * A channel's messages of the last `TALK_WINDOW_MS` from the durable Discord stream, for
 * the readers that join what this process never observed to what it sees: the room
 * (`ReadTheRoom.load`, ten minutes) and the steward's upkeep (thirty). Readers asking while
 * a read is out share it: after a restart both ask on a channel's first message, and one
 * filtered consumer reads the channel once instead of twice. Nothing is kept once the read
 * is in (each reader keeps what it needs).
 */
@Injectable()
export class RecentTalk {
  private readonly reading = new Map<string, Promise<HistoryMessage[]>>();

  constructor(
    private readonly history: ChannelHistory,
    private readonly clock: Clock,
  ) {}

  /** The channel's messages since `TALK_WINDOW_MS` ago, oldest first. */
  messages(guildId: string, channelId: string): Promise<HistoryMessage[]> {
    let read = this.reading.get(channelId);
    if (!read) {
      read = this.history.messagesSince(guildId, channelId, this.clock.now() - TALK_WINDOW_MS);
      this.reading.set(channelId, read);
      const done = () => this.reading.delete(channelId);
      read.then(done, done);
    }
    return read;
  }
}
