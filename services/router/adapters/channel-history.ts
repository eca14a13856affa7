import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { Streams, Subjects, subject, type Envelope } from '@dirigent/contracts';
import { Messaging, storedMessage } from '@dirigent/messaging';
import { ChannelHistory, type ChannelEvents, type HistoryMessage } from '../application/clients';

/** More than any plan window holds; a busier channel is read up to here (the oldest first). */
const MAX_EVENTS = 20_000;

const READ = new Set(['message.created', 'message.deleted', 'typing.started', 'reaction.added']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A channel's events from the durable streams (an ephemeral consumer filtered on the
 * channel, from a start time): exact whatever the router's own consumers had seen or acked
 * when it was killed. Messages and typing from the Discord events; the turns its agents
 * took from the router's own decisions.
 */
export class JetStreamChannelHistory extends ChannelHistory {
  constructor(private readonly messaging: Messaging) {
    super();
  }

  since(guildId: string, channelId: string, from: number): Promise<ChannelEvents> {
    return this.events(guildId, channelId, from, '>');
  }

  async messagesSince(guildId: string, channelId: string, from: number): Promise<HistoryMessage[]> {
    // `message.*`: created and deleted, and none of the channel's other events.
    return (await this.events(guildId, channelId, from, 'message.*')).messages;
  }

  async recentMessages(
    from: number,
    max: number,
  ): Promise<Map<string, HistoryMessage[]> | undefined> {
    // `<prefix>.<guild>.<channel>.message.<kind>`: every channel's, in one read.
    const prefix = `${Subjects.discord.evtPrefix}.`;
    const byChannel = new Map<string, Map<string, HistoryMessage>>();
    const none: Omit<ChannelEvents, 'messages'> = { typing: [], reactions: [] };
    const whole = await this.read(
      Streams.discordEvents,
      `${prefix}*.*.message.*`,
      from,
      (s, data) => {
        const [, channelId, ...kind] = s.slice(prefix.length).split('.');
        let messages = byChannel.get(channelId);
        if (!messages) byChannel.set(channelId, (messages = new Map()));
        apply(kind.join('.'), data(), messages, none);
      },
      max,
    );
    if (!whole) return undefined;
    const since = (messages: Map<string, HistoryMessage>) =>
      [...messages.values()].filter((m) => m.at >= from);
    return new Map([...byChannel].map(([channelId, messages]) => [channelId, since(messages)]));
  }

  async botTurnsSince(guildId: string, channelId: string, from: number): Promise<number[]> {
    const turns: number[] = [];
    const decisions = subject.routerEvent(guildId, channelId, 'decision');
    await this.read(Streams.routerEvents, decisions, from, (_subject, data) => {
      const d = data();
      const spoke =
        (Array.isArray(d.beats) && d.beats.length > 0) || typeof d.reaction === 'string';
      const at = Date.parse(str(d.at) ?? '');
      if (spoke && Number.isFinite(at)) turns.push(at);
    });
    return turns;
  }

  async newest(
    guildId: string,
    channelId: string,
  ): Promise<{ messageId: string; at: number } | undefined> {
    const sm = await storedMessage(this.messaging.client.jsm, Streams.discordEvents, {
      last_by_subj: subject.discordEvent(guildId, channelId, 'message.created'),
    });
    const d = sm?.json<Envelope<Record<string, unknown>>>().data ?? {};
    const messageId = str(d.messageId);
    const at = Date.parse(str(d.createdAt) ?? '');
    return messageId ? { messageId, at: Number.isFinite(at) ? at : 0 } : undefined;
  }

  /** The channel's events of the kinds `READ` names among those `kinds` filters, since `from`. */
  private async events(
    guildId: string,
    channelId: string,
    from: number,
    kinds: '>' | 'message.*',
  ): Promise<ChannelEvents> {
    const prefix = `${Subjects.discord.evtPrefix}.${guildId}.${channelId}.`;
    const messages = new Map<string, HistoryMessage>();
    const seen: Omit<ChannelEvents, 'messages'> = { typing: [], reactions: [] };
    await this.read(Streams.discordEvents, `${prefix}${kinds}`, from, (s, data) => {
      const kind = s.slice(prefix.length);
      if (READ.has(kind)) apply(kind, data(), messages, seen);
    });
    return {
      messages: [...messages.values()].filter((m) => m.at >= from),
      typing: seen.typing.filter((t) => t.at >= from),
      reactions: seen.reactions,
    };
  }

  /**
   * Reads `filter`'s events since `from`, oldest first, the first `MAX_EVENTS` of them; given
   * `whole`, all of them, or none when there are more than `whole` (then false is returned).
   */
  private async read(
    stream: string,
    filter: string,
    from: number,
    /** `data` decodes the event's payload: only the kinds read are decoded. */
    each: (subject: string, data: () => Record<string, unknown>) => void,
    whole?: number,
  ): Promise<boolean> {
    const { jsm, js } = this.messaging.client;
    const info = await jsm.consumers.add(stream, {
      filter_subject: filter,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date(Math.max(0, from)).toISOString(),
      ack_policy: AckPolicy.None,
      mem_storage: true,
      inactive_threshold: nanos(30_000),
    });
    try {
      if (whole !== undefined && info.num_pending > whole) return false;
      const consumer = await js.consumers.get(stream, info.name);
      // num_pending is exact at creation: each fetch asks for what is there.
      let remaining = Math.min(info.num_pending, whole ?? MAX_EVENTS);
      while (remaining > 0) {
        const batch = await consumer.fetch({
          max_messages: Math.min(remaining, 500),
          expires: 5000,
        });
        let got = 0;
        for await (const m of batch) {
          got++;
          remaining--;
          each(m.subject, () => m.json<Envelope<Record<string, unknown>>>().data ?? {});
        }
        if (got === 0) break;
      }
      return true;
    } finally {
      await jsm.consumers.delete(stream, info.name).catch(() => undefined);
    }
  }
}

function apply(
  kind: string,
  d: Record<string, unknown>,
  messages: Map<string, HistoryMessage>,
  seen: Omit<ChannelEvents, 'messages'>,
): void {
  const messageId = str(d.messageId);
  const authorId = str(d.authorId);
  const at = Date.parse(str(d.createdAt) ?? str(d.at) ?? '');
  if (kind === 'message.created' && messageId && authorId && Number.isFinite(at)) {
    messages.set(messageId, {
      messageId,
      authorId,
      authorIsBot: d.authorIsBot === true,
      content: str(d.content) ?? '',
      ...(str(d.webhookId) ? { webhookId: str(d.webhookId) } : {}),
      at,
      ...(str(d.replyToMessageId) ? { replyToMessageId: str(d.replyToMessageId) } : {}),
      ...(Array.isArray(d.mentions)
        ? { mentions: d.mentions.filter((x): x is string => typeof x === 'string') }
        : {}),
    });
  } else if (kind === 'message.deleted' && messageId) {
    messages.delete(messageId);
  } else if (kind === 'typing.started' && str(d.userId) && Number.isFinite(at)) {
    seen.typing.push({ userId: str(d.userId)!, at });
  } else if (kind === 'reaction.added' && messageId && str(d.userId)) {
    // A reaction has no time of its own: read from `from`, it came after.
    seen.reactions.push({ messageId, userId: str(d.userId)!, userIsBot: d.userIsBot === true });
  }
}
