import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '@dirigent/service-kit';
import { DEFAULT_DECISION, DEFAULT_TOPIC_SPLIT, HUMANS_WINDOW_MS } from '@dirigent/router-domain';
import { ChannelHistory, type HistoryMessage } from './clients';

/** The look back of a channel's talk read after a start: the longest its readers need. */
export const TALK_WINDOW_MS = Math.max(
  HUMANS_WINDOW_MS,
  DEFAULT_TOPIC_SPLIT.windowMs,
  DEFAULT_DECISION.windowMs,
);
/** The most messages (created and deleted) the start's read of every channel takes. */
export const START_READ_MAX = 20_000;
/**
 * How long after a start a channel's first reader is served from the start's read: what
 * came after it is what this process observed itself (its consumers begin where the last
 * process left off, before the read). A channel first asked later is read on its own.
 */
export const START_READ_SERVES_MS = 60_000;

type ByChannel = Map<string, HistoryMessage[]>;

/**
 * A channel's messages of the last `TALK_WINDOW_MS` from the durable Discord stream, for
 * the readers that join what this process never observed to what it sees: the room
 * (`ReadTheRoom.load`, ten minutes) and the steward's upkeep (thirty).
 *
 * At start, before the router consumes, every channel's talk is read in one go (at most
 * `START_READ_MAX` messages; more, and none is read this way): the first turns of a
 * restarted router then find their channel's history at hand instead of each channel
 * waiting for a filtered read of its own, ten of them at once while the backlog runs.
 * Otherwise readers asking while a channel's read is out share it, and nothing is kept once
 * it is in (each reader keeps what it needs).
 */
@Injectable()
export class RecentTalk implements OnApplicationBootstrap {
  private readonly log = new Logger('router:talk');
  private readonly reading = new Map<string, Promise<HistoryMessage[]>>();
  private started?: { at: number; read: Promise<ByChannel | undefined> };

  constructor(
    private readonly history: ChannelHistory,
    private readonly clock: Clock,
  ) {}

  /** Waited for by the start: the consumers begin once every channel's talk is in. */
  async onApplicationBootstrap(): Promise<void> {
    await this.readAll();
  }

  /** Every channel's talk, in one read (see the class). */
  readAll(): Promise<ByChannel | undefined> {
    const at = this.clock.now();
    const read = this.history.recentMessages(at - TALK_WINDOW_MS, START_READ_MAX).then(
      (all) => {
        if (!all) this.log.warn({ max: START_READ_MAX }, 'talk too long to read at start');
        else {
          let messages = 0;
          for (const m of all.values()) messages += m.length;
          const ms = this.clock.now() - at;
          this.log.log({ channels: all.size, messages, ms }, 'talk read at start');
        }
        return all;
      },
      (err: Error) => {
        this.log.warn({ err: err.message }, 'talk not read at start');
        return undefined;
      },
    );
    const started = { at, read };
    this.started = started;
    // Dropped once it serves no one (a quiet router asks nothing that would drop it).
    setTimeout(() => {
      if (this.started === started) this.started = undefined;
    }, START_READ_SERVES_MS).unref();
    return read;
  }

  /** The channel's messages since `TALK_WINDOW_MS` ago, oldest first. */
  messages(guildId: string, channelId: string): Promise<HistoryMessage[]> {
    const started = this.started;
    if (started && this.clock.now() - started.at < START_READ_SERVES_MS) {
      // A channel the read found nothing of said nothing in the window.
      return started.read.then((all) =>
        all ? (all.get(channelId) ?? []) : this.read(guildId, channelId),
      );
    }
    this.started = undefined;
    return this.read(guildId, channelId);
  }

  private read(guildId: string, channelId: string): Promise<HistoryMessage[]> {
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
