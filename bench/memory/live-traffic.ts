import { subject, type MessageCreated } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { filler, prng } from './corpus';
import type { SeededGuild } from './seed';

/** Channels talking at once; each talks for `WINDOW_MS`, then falls silent (its epoch closes). */
const ACTIVE = 10;
const WINDOW_MS = 10_000;
const TICK_MS = 50;

/**
 * A community that never stops talking: `perSecond` messages a second (in ticks of 50 ms)
 * into ten of the guild's channels at a time, the ten moving on every ten seconds, so the
 * channels left behind fall silent and their epochs close after the service's gap, and the
 * busy ones arm a moment batch every 50 messages. `burst` adds messages as fast as the
 * server takes them, into channels of their own, and resolves once they are published.
 */
export class LiveTraffic {
  private timer?: NodeJS.Timeout;
  private n = 0;
  private readonly rand = prng(3);
  private readonly started = Date.now();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Messages published by the steady stream. */
  published = 0;

  constructor(
    private readonly messaging: Messaging,
    private readonly guild: SeededGuild,
    private readonly perSecond: number,
    /** The messages' ids count up from here (Discord snowflakes: digits only). */
    private readonly idBase: bigint,
  ) {}

  start(): void {
    const perTick = (this.perSecond * TICK_MS) / 1000;
    let owed = 0;
    this.timer = setInterval(() => {
      owed += perTick;
      const window = Math.floor((Date.now() - this.started) / WINDOW_MS);
      for (; owed >= 1; owed--) {
        const c = (window * ACTIVE + (this.n % ACTIVE)) % this.guild.channelIds.length;
        this.track(this.send(this.guild.channelIds[c]));
        this.published++;
      }
    }, TICK_MS);
  }

  /** Publishes `count` messages into `channelIds` as fast as acks come back (500 in flight). */
  async burst(count: number, channelIds: string[]): Promise<void> {
    for (let i = 0; i < count; i += 500) {
      const size = Math.min(500, count - i);
      await Promise.all(
        Array.from({ length: size }, (_, j) => this.send(channelIds[(i + j) % channelIds.length])),
      );
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private track(p: Promise<unknown>): void {
    const settled = p.catch(() => undefined).finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
  }

  private send(channelId: string, attempt = 1): Promise<unknown> {
    const n = this.n++;
    const author = this.guild.authors[Math.floor(this.rand() * this.guild.authors.length)];
    const data: MessageCreated = {
      guildId: this.guild.guildId,
      channelId,
      messageId: String(this.idBase + BigInt(n)),
      authorId: author.id,
      authorName: author.name,
      authorIsBot: false,
      content: filler(this.rand),
      createdAt: new Date().toISOString(),
    };
    return this.publish(data, attempt);
  }

  // A publish whose ack is late (a busy machine) is sent again: the envelope id is the
  // JetStream message id, so the server drops the copy.
  private publish(data: MessageCreated, attempt: number): Promise<unknown> {
    return this.messaging
      .publishEvent(
        subject.discordEvent(data.guildId, data.channelId, 'message.created'),
        'message.created',
        data,
        { id: `discord:${data.messageId}` },
      )
      .catch((e: Error) => {
        if (attempt >= 5 || !/timeout/i.test(e.message)) throw e;
        return this.publish(data, attempt + 1);
      });
  }
}
