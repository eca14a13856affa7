import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ChannelType,
  Events,
  PermissionFlagsBits,
  type Client,
  type GuildMember,
  type Message,
  type OmitPartialGroupDMChannel,
  type PartialGuildMember,
  type PartialMessage,
  type TextChannel,
  type Typing,
} from 'discord.js';
import { JetStreamApiError } from '@nats-io/jetstream';
import {
  MemberChanged,
  MessageCreated,
  MessageDeleted,
  Streams,
  TypingStarted,
  subject,
  validatePayload,
  type Envelope,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from './config';
import { gatewayEvents } from './metrics';
import {
  classifyDeletion,
  classifyMembership,
  classifyMessage,
  classifyTyping,
  toPublication,
  type Classified,
  type IngestEvent,
  type MessageFacts,
} from './domain/events';

const NO_MESSAGE_FOUND = 10037;

function messageFacts(m: Message | PartialMessage): MessageFacts {
  return {
    id: m.id,
    guildId: m.guildId,
    channelId: m.channelId,
    authorId: m.author?.id ?? '0',
    authorIsBot: m.author?.bot ?? false,
    content: m.content ?? '',
    createdAt: m.createdAt,
    webhookId: m.webhookId ?? null,
    system: m.system ?? false,
  };
}

const CONTRACT = {
  'message.created': MessageCreated,
  'message.deleted': MessageDeleted,
  'typing.started': TypingStarted,
  'member.joined': MemberChanged,
  'member.left': MemberChanged,
} as const;

const later = (a: string, b: string | undefined) => (!b || BigInt(a) > BigInt(b) ? a : b);

/**
 * Gateway in: one small handler per discord.js event that classifies (pure, in
 * `domain/events`) and re-emits to JetStream; plus catch-up of what was missed while
 * disconnected. Every envelope id derives from Discord ids, so replays de-duplicate.
 */
@Injectable()
export class GatewayIngest {
  private readonly log = new Logger('gateway-ingest');
  /** Newest message id published per channel. */
  private readonly lastSeen = new Map<string, string>();
  private catchingUp: Promise<void> = Promise.resolve();
  private readonly chains = new Map<string, Promise<void>>();
  private gate: { promise: Promise<void>; open: () => void } | null = null;
  published = 0;

  constructor(
    private readonly messaging: Messaging,
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
  ) {}

  /** Wires the handlers; call before login so nothing is missed. */
  attach(client: Client): void {
    client.on(Events.MessageCreate, (m) => void this.onMessageCreate(m));
    client.on(Events.MessageDelete, (m) => void this.onMessageDelete(m));
    client.on(Events.TypingStart, (t) => void this.onTypingStart(t));
    client.on(Events.GuildMemberAdd, (m) => void this.onMember('member.joined', m));
    client.on(Events.GuildMemberRemove, (m) => void this.onMember('member.left', m));
  }

  private onMessageCreate(m: OmitPartialGroupDMChannel<Message>): Promise<void> {
    return this.emit(classifyMessage(messageFacts(m)));
  }

  private onMessageDelete(m: OmitPartialGroupDMChannel<Message | PartialMessage>): Promise<void> {
    return this.emit(classifyDeletion({ id: m.id, guildId: m.guildId, channelId: m.channelId }));
  }

  private onTypingStart(t: Typing): Promise<void> {
    return this.emit(
      classifyTyping({
        guildId: t.guild?.id ?? null,
        channelId: t.channel.id,
        userId: t.user.id,
        startedAt: t.startedAt,
      }),
    );
  }

  private async onMember(
    kind: 'member.joined' | 'member.left',
    m: GuildMember | PartialGuildMember,
  ): Promise<void> {
    const visible = m.guild.channels.cache
      .filter(
        (c) =>
          c.type === ChannelType.GuildText &&
          // A member who left has no permissions any more: judge by who could see it.
          (kind === 'member.left' ||
            c.permissionsFor(m as GuildMember).has(PermissionFlagsBits.ViewChannel)),
      )
      .map((c) => c.id);
    const events = classifyMembership({
      kind,
      guildId: m.guild.id,
      userId: m.id,
      isBot: m.user?.bot ?? false,
      joinedAt: m.joinedAt,
      visibleChannelIds: visible,
    });
    if (this.gate) await this.gate.promise;
    for (const e of events) await this.publish(e);
  }

  private async emit(c: Classified, path: 'live' | 'catch-up' = 'live'): Promise<void> {
    if (!c.ok) return;
    if (path === 'live' && this.gate) await this.gate.promise;
    await this.publish(c.event, path);
  }

  /**
   * The connection dropped: hold live events until the catch-up after the reconnect has
   * published what was missed, so the stream keeps Discord's order across the gap.
   */
  holdLiveEvents(): void {
    if (this.gate) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.gate = { promise, open };
  }

  private releaseLiveEvents(): void {
    const gate = this.gate;
    this.gate = null;
    gate?.open();
  }

  /** Publishes in gateway order per channel (the coordinator reads order as causality). */
  private publish(e: IngestEvent, path: 'live' | 'catch-up' = 'live'): Promise<void> {
    const key = e.data.channelId;
    const next = (this.chains.get(key) ?? Promise.resolve()).then(() => this.publishNow(e, path));
    this.chains.set(key, next);
    void next.finally(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return next;
  }

  private async publishNow(e: IngestEvent, path: 'live' | 'catch-up'): Promise<void> {
    const p = toPublication(e);
    const checked = validatePayload<object>(CONTRACT[e.kind], p.data);
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
    if (e.kind === 'message.created') {
      this.lastSeen.set(
        e.data.channelId,
        later(e.data.messageId, this.lastSeen.get(e.data.channelId)),
      );
    }
  }

  /** Queues a catch-up of every text channel of the client's guilds (one at a time). */
  catchUp(client: Client<true>): Promise<void> {
    this.catchingUp = this.catchingUp
      .then(() => this.runCatchUp(client))
      .finally(() => this.releaseLiveEvents());
    return this.catchingUp;
  }

  private async runCatchUp(client: Client<true>): Promise<void> {
    let recovered = 0;
    for (const guild of client.guilds.cache.values()) {
      for (const channel of guild.channels.cache.values()) {
        if (channel.type !== ChannelType.GuildText) continue;
        try {
          recovered += await this.catchUpChannel(channel);
        } catch (err) {
          this.log.warn({ channelId: channel.id, err: String(err) }, 'catch-up failed');
        }
      }
    }
    if (recovered) this.log.log(`catch-up published ${recovered} message(s) missed while away`);
  }

  private async catchUpChannel(channel: TextChannel): Promise<number> {
    let after = this.lastSeen.get(channel.id) ?? (await this.lastPublished(channel));
    // A channel we never published from has no "since": history is not backfilled.
    if (!after) return 0;
    let count = 0;
    for (let page = 0; page < this.config.DISCORD_CATCHUP_MAX_PAGES; page++) {
      const batch = await channel.messages.fetch({ after, limit: 100, cache: false });
      const sorted = [...batch.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      for (const m of sorted) {
        await this.emit(classifyMessage(messageFacts(m)), 'catch-up');
        after = later(m.id, after);
        count++;
      }
      if (batch.size < 100) break;
    }
    return count;
  }

  /** The newest message of a channel already in the stream (survives restarts). */
  private async lastPublished(channel: TextChannel): Promise<string | undefined> {
    try {
      const sm = await this.messaging.client.jsm.streams.getMessage(Streams.discordEvents, {
        last_by_subj: subject.discordEvent(channel.guildId, channel.id, 'message.created'),
      });
      const id = sm?.json<Envelope<{ messageId: string }>>().data.messageId;
      if (id) this.lastSeen.set(channel.id, later(id, this.lastSeen.get(channel.id)));
      return id;
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === NO_MESSAGE_FOUND) return undefined;
      throw e;
    }
  }
}
