import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ChannelType,
  Events,
  type Channel,
  MessageReferenceType,
  PermissionFlagsBits,
  SnowflakeUtil,
  type Client,
  type GuildMember,
  type Message,
  type MessageReaction,
  type PartialMessageReaction,
  type PartialUser,
  type OmitPartialGroupDMChannel,
  type PartialGuildMember,
  type PartialMessage,
  type TextChannel,
  type Typing,
  type User,
} from 'discord.js';
import { compareSnowflakes, laterSnowflake } from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from '../config';
import { audienceOf } from './channel-audience';
import {
  classifyAccessChange,
  classifyChannelAudience,
  classifyDeletion,
  classifyMembership,
  classifyMessage,
  classifyReaction,
  classifyTyping,
  type Classified,
  type IngestEvent,
  type MessageFacts,
} from '../domain/events';
import { DiscordEventPublisher, type IngestPath } from './event-publisher';

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
    authorName: m.member?.displayName ?? m.author?.displayName ?? null,
    mentions: m.mentions ? [...m.mentions.users.keys()] : [],
    replyToMessageId:
      m.reference?.type === MessageReferenceType.Default ? (m.reference.messageId ?? null) : null,
    audience: audienceOf(m.channel),
  };
}

/** How far back a channel with nothing published yet is caught up. */
const UNSEEN_CHANNEL_WINDOW_MS = 10 * 60_000;

/**
 * Gateway in: one small listener per discord.js event that classifies (pure, in
 * `domain/events`) and hands the event to the publisher; plus catch-up of what was missed
 * while disconnected. Every envelope id derives from Discord ids, so replays de-duplicate.
 */
@Injectable()
export class GatewayIngest {
  private readonly log = new Logger('gateway-ingest');
  private catchingUp: Promise<void> = Promise.resolve();
  private gate: { promise: Promise<void>; open: () => void } | null = null;
  /**
   * Reactions carry no id: their event id holds the receipt time, so two receipts never share
   * a millisecond (an add, remove and add again within one ms are three events, not two).
   */
  private lastReceiptMs = 0;

  constructor(
    private readonly publisher: DiscordEventPublisher,
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
  ) {}

  /** Events published so far. */
  get published(): number {
    return this.publisher.published;
  }

  /** Wires the handlers; call before login so nothing is missed. */
  attach(client: Client): void {
    client.on(Events.MessageCreate, (m) => void this.onMessageCreate(m));
    client.on(Events.MessageDelete, (m) => void this.onMessageDelete(m));
    client.on(Events.TypingStart, (t) => void this.onTypingStart(t));
    client.on(Events.MessageReactionAdd, (r, u) => void this.onReaction('reaction.added', r, u));
    client.on(
      Events.MessageReactionRemove,
      (r, u) => void this.onReaction('reaction.removed', r, u),
    );
    client.on(Events.GuildMemberAdd, (m) => void this.onMember('member.joined', m));
    client.on(Events.GuildMemberRemove, (m) => void this.onMember('member.left', m));
    client.on(Events.ChannelUpdate, (before, after) => void this.onChannelUpdate(before, after));
    client.on(Events.ThreadMembersUpdate, (added, removed, thread) => {
      const member = (userId: string, joined: boolean) => ({
        userId,
        isBot: client.users.cache.get(userId)?.bot ?? false,
        before: !joined,
        after: joined,
      });
      void this.emitAll(
        classifyAccessChange({
          guildId: thread.guildId,
          channelId: thread.id,
          members: [
            ...[...added.keys()].map((id) => member(id, true)),
            ...[...removed.keys()].map((id) => member(id, false)),
          ],
          changedAt: new Date(),
        }),
      );
    });
  }

  private async emitAll(events: IngestEvent[]): Promise<void> {
    if (this.gate) await this.gate.promise;
    for (const e of events) await this.publisher.publish(e);
  }

  /**
   * Permission overwrites changed: the channel's audience (and its threads') when it
   * changed, and the members who gained or lost sight of the channel.
   */
  private async onChannelUpdate(before: Channel, after: Channel): Promise<void> {
    await this.reportAudience(before, after, new Date());
    if (before.type !== ChannelType.GuildText || after.type !== ChannelType.GuildText) return;
    const sees = (c: TextChannel, m: GuildMember) =>
      c.permissionsFor(m).has(PermissionFlagsBits.ViewChannel);
    const events = classifyAccessChange({
      guildId: after.guildId,
      channelId: after.id,
      members: [...after.guild.members.cache.values()].map((m) => ({
        userId: m.id,
        isBot: m.user.bot,
        before: sees(before, m),
        after: sees(after, m),
      })),
      changedAt: new Date(),
    });
    await this.emitAll(events);
  }

  /**
   * `channel.updated` for a channel whose audience key changed (`before` null: on
   * connecting, every channel once), and for its cached threads, which share it.
   */
  private async reportAudience(
    before: Channel | null,
    after: Channel,
    changedAt: Date | null,
    path: IngestPath = 'live',
  ): Promise<void> {
    if (after.isDMBased()) return;
    const now = audienceOf(after);
    if (!now) return;
    const was = before ? audienceOf(before) : null;
    if (before && !was) return;
    const channels: Channel[] = [after];
    if ('threads' in after) channels.push(...after.threads.cache.values());
    for (const c of channels) {
      if (c.isDMBased()) continue;
      const facts = c === after ? now : audienceOf(c);
      if (!facts) continue;
      await this.emit(
        classifyChannelAudience({
          guildId: c.guildId,
          channelId: c.id,
          name: c.name,
          before: was && c !== after ? { ...was, parentChannelId: after.id } : was,
          after: facts,
          changedAt,
        }),
        path,
      );
    }
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

  private onReaction(
    kind: 'reaction.added' | 'reaction.removed',
    r: MessageReaction | PartialMessageReaction,
    u: User | PartialUser,
  ): Promise<void> {
    return this.emit(
      classifyReaction({
        kind,
        guildId: r.message.guildId,
        channelId: r.message.channelId,
        messageId: r.message.id,
        userId: u.id,
        userIsBot: u.bot ?? undefined,
        emojiName: r.emoji.name,
        emojiId: r.emoji.id,
        receivedAt: this.nextReceipt(),
      }),
    );
  }

  private nextReceipt(): Date {
    this.lastReceiptMs = Math.max(Date.now(), this.lastReceiptMs + 1);
    return new Date(this.lastReceiptMs);
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
    for (const e of events) await this.publisher.publish(e);
  }

  private async emit(c: Classified, path: IngestPath = 'live'): Promise<void> {
    if (!c.ok) return;
    if (path === 'live' && this.gate) await this.gate.promise;
    await this.publisher.publish(c.event, path);
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
      // Every channel's audience first: one that changed while away is hidden before its
      // missed messages arrive.
      for (const channel of guild.channels.cache.values()) {
        await this.reportAudience(null, channel, null, 'catch-up').catch((err: unknown) =>
          this.log.warn({ channelId: channel.id, err: String(err) }, 'audience not reported'),
        );
      }
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
    // A channel nothing was published from yet (new, or its first messages fell into a
    // shard's hand-over) starts a short window back: no older history is backfilled.
    let after =
      (await this.publisher.newestPublished(channel.guildId, channel.id)) ??
      SnowflakeUtil.generate({ timestamp: Date.now() - UNSEEN_CHANNEL_WINDOW_MS }).toString();
    let count = 0;
    for (let page = 0; page < this.config.DISCORD_CATCHUP_MAX_PAGES; page++) {
      const batch = await channel.messages.fetch({ after, limit: 100, cache: false });
      const sorted = [...batch.values()].sort((a, b) => compareSnowflakes(a.id, b.id));
      for (const m of sorted) {
        await this.emit(classifyMessage(messageFacts(m)), 'catch-up');
        after = laterSnowflake(m.id, after);
        count++;
      }
      if (batch.size < 100) break;
    }
    return count;
  }
}
