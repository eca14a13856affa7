import { Injectable, Logger } from '@nestjs/common';
import {
  DiscordEventPayloads,
  laterSnowflake,
  Streams,
  subject,
  validatePayload,
  type Envelope,
  type GuildJoined,
} from '@dirigent/contracts';
import { KeyedQueue, Messaging, storedMessage } from '@dirigent/messaging';
import { toPublication, type IngestEvent } from '../domain/events';
import { gatewayEvents } from './metrics';

export type IngestPath = 'live' | 'catch-up';

/**
 * Discord events to JetStream, in gateway order per channel (the coordinator reads order as
 * causality), each checked against its contract. Remembers the newest message published
 * per channel, where a catch-up starts.
 */
@Injectable()
export class DiscordEventPublisher {
  private readonly log = new Logger('discord-event-publisher');
  private readonly queue = new KeyedQueue();
  /** Newest message id published per channel. */
  private readonly lastSeen = new Map<string, string>();
  published = 0;

  constructor(private readonly messaging: Messaging) {}

  publish(e: IngestEvent, path: IngestPath = 'live'): Promise<void> {
    return this.queue.run(e.data.channelId, () => this.publishNow(e, path));
  }

  private async publishNow(e: IngestEvent, path: IngestPath): Promise<void> {
    const p = toPublication(e);
    const checked = validatePayload<object>(DiscordEventPayloads[e.kind], p.data);
    if (!checked.ok) {
      this.log.warn(
        { subject: p.subject, errors: checked.errors },
        'event fails its contract; not published',
      );
      return;
    }
    const env: Envelope<unknown> = {
      id: p.envelopeId,
      type: p.type,
      v: 1,
      at: new Date().toISOString(),
      source: this.messaging.source,
      data: p.data,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.messaging.publish(p.subject, env);
        break;
      } catch (err) {
        if (attempt >= 5) {
          this.log.error(
            { subject: p.subject, id: p.envelopeId, err: String(err) },
            'publish failed',
          );
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
    this.published++;
    gatewayEvents.inc({ kind: e.kind, path });
    if (e.kind === 'message.created') this.saw(e.data.channelId, e.data.messageId);
  }

  /**
   * `guild.joined` for a guild the bot is in: on a join and once per guild at start-up
   * (consumers are idempotent). `cause` makes the envelope id (a join's or a start's).
   */
  async guildJoined(g: GuildJoined, cause: string): Promise<void> {
    const env: Envelope<GuildJoined> = {
      id: `guild.joined:${g.guildId}:${cause}`,
      type: 'guild.joined',
      v: 1,
      at: new Date().toISOString(),
      source: this.messaging.source,
      data: { guildId: g.guildId, name: g.name },
    };
    await this.messaging.publish(subject.guildJoined(g.guildId), env);
    gatewayEvents.inc({ kind: 'guild.joined', path: 'live' });
  }

  /** Forgets the newest messages remembered: the next catch-up reads them from the stream. */
  forgetNewest(): void {
    this.lastSeen.clear();
  }

  private saw(channelId: string, messageId: string): void {
    this.lastSeen.set(channelId, laterSnowflake(messageId, this.lastSeen.get(channelId)));
  }

  /**
   * The newest message of a channel already published: remembered, else the last one in
   * the stream (which survives restarts); undefined when there is none.
   */
  async newestPublished(guildId: string, channelId: string): Promise<string | undefined> {
    const seen = this.lastSeen.get(channelId);
    if (seen) return seen;
    const sm = await storedMessage(this.messaging.client.jsm, Streams.discordEvents, {
      last_by_subj: subject.discordEvent(guildId, channelId, 'message.created'),
    });
    const id = sm?.json<Envelope<{ messageId: string }>>().data.messageId;
    if (id) this.saw(channelId, id);
    return id;
  }
}
