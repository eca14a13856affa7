import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import type { Msg } from '@nats-io/nats-core';
import {
  ChannelMembersQuery,
  CreateChannelRequest,
  Streams,
  Subjects,
  subject,
  type Envelope,
  type MessageCreated,
  type SendMessageCommand,
  ok,
  validatePayload,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { uid } from '@dirigent/testing';

let lastId = 0n;
/** Discord-like ids that grow, as Discord's do within a channel. */
export function nextSnowflake(): string {
  const candidate = BigInt(Date.now() - 1420070400000) << 22n;
  lastId = candidate > lastId ? candidate : lastId + 1n;
  return lastId.toString();
}

export interface Member {
  userId: string;
  isBot: boolean;
}

/**
 * Stands in for the Discord ingest: answers the members query and create-channel RPC,
 * records every `send-message` command, and publishes `message.created` events — including
 * the echo of the moderator's own messages, as Discord would.
 */
export class FakeIngest {
  readonly sent: SendMessageCommand[] = [];
  readonly created: { guildId: string; channelId: string; memberIds: string[] }[] = [];
  private readonly members = new Map<string, Member[]>();
  private readonly durable = uid('fake-ingest').replace(/[^A-Za-z0-9_-]/g, '_');
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private readonly subscriptions: { unsubscribe(): void }[] = [];

  constructor(
    private readonly messaging: Messaging,
    readonly moderatorId: string,
  ) {}

  setMembers(channelId: string, members: Member[]): void {
    this.members.set(channelId, members);
  }

  /** Member queries of held channels, received and not answered (yet). */
  private readonly held = new Map<string, Msg[]>();

  /** Stops answering `channel-members` for a channel (its guild gone): queries are kept. */
  hold(channelId: string): void {
    if (!this.held.has(channelId)) this.held.set(channelId, []);
  }

  /** Member queries of a held channel received so far. */
  heldQueries(channelId: string): number {
    return this.held.get(channelId)?.length ?? 0;
  }

  /** Answers a held channel's kept queries with its members and answers it again from now on. */
  release(channelId: string): void {
    const kept = this.held.get(channelId) ?? [];
    this.held.delete(channelId);
    const members = this.members.get(channelId) ?? [];
    for (const msg of kept) msg.respond(JSON.stringify(ok({ members })));
  }

  /** Guilds this fake owns: it answers only for them and for channels it knows. */
  readonly guilds = new Set<string>();

  /**
   * Answers `subj` when `answer` returns a result and stays silent otherwise (a guild or
   * channel it does not know: the caller's request times out, as with a Discord gone).
   */
  private respond<T extends object>(
    subj: string,
    payload: new () => T,
    answer: (data: T, msg: Msg) => unknown | undefined,
  ): void {
    const sub = this.messaging.client.nc.subscribe(subj, {
      callback: (_err, msg) => {
        let body: unknown;
        try {
          body = msg.json();
        } catch {
          return;
        }
        const checked = validatePayload(payload, body);
        if (!checked.ok) return;
        const result = answer(checked.value, msg);
        if (result !== undefined) msg.respond(JSON.stringify(ok(result)));
      },
    });
    this.subscriptions.push(sub);
  }

  async start(): Promise<void> {
    this.respond(Subjects.discord.queryChannelMembers, ChannelMembersQuery, (q, msg) => {
      const kept = this.held.get(q.channelId);
      if (kept) {
        kept.push(msg);
        return undefined;
      }
      const members = this.members.get(q.channelId);
      return members ? { members } : undefined;
    });
    this.respond(Subjects.discord.rpcCreateChannel, CreateChannelRequest, (r) => {
      if (!this.guilds.has(r.guildId)) return undefined;
      const channelId = nextSnowflake();
      const memberIds = [...new Set([this.moderatorId, ...(r.memberIds ?? [])])];
      this.members.set(
        channelId,
        memberIds.map((userId) => ({ userId, isBot: true })),
      );
      this.created.push({ guildId: r.guildId, channelId, memberIds });
      return { channelId };
    });
    await this.messaging.client.nc.flush();
    const { jsm, js } = this.messaging.client;
    const record = async (cmd: SendMessageCommand) => {
      if (!this.members.has(cmd.channelId)) return;
      this.sent.push(cmd);
      // Discord shows the moderator's message to everyone, the coordinator included.
      await this.post(cmd.guildId, cmd.channelId, this.moderatorId, cmd.content);
    };
    await jsm.consumers.add(Streams.discordCommands, {
      durable_name: this.durable,
      filter_subject: Subjects.discord.cmdSendMessage,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    const consumer = await js.consumers.get(Streams.discordCommands, this.durable);
    this.messages = await consumer.consume({ max_messages: 64 });
    this.loop = (async () => {
      for await (const m of this.messages!) {
        const env = m.json<Envelope<SendMessageCommand>>();
        m.ack();
        await record(env.data);
      }
    })();
  }

  /** Messages the coordinator asked to send in a channel, optionally of one purpose. */
  sentTo(channelId: string, purpose?: string): SendMessageCommand[] {
    return this.sent.filter(
      (s) => s.channelId === channelId && (purpose === undefined || s.purpose === purpose),
    );
  }

  /** Publishes a `message.created` as the ingest would; returns its message id. */
  async post(
    guildId: string,
    channelId: string,
    authorId: string,
    content: string,
    authorIsBot = authorId === this.moderatorId,
  ): Promise<string> {
    const messageId = nextSnowflake();
    const data: MessageCreated = {
      guildId,
      channelId,
      messageId,
      authorId,
      authorIsBot,
      content,
      createdAt: new Date().toISOString(),
    };
    await this.messaging.publishEvent(
      subject.discordEvent(guildId, channelId, 'message.created'),
      'message.created',
      data,
      { id: `discord:${messageId}` },
    );
    return messageId;
  }

  /** A member joins: the member list changes and `member.joined` is published. */
  async join(guildId: string, channelId: string, member: Member): Promise<void> {
    this.members.set(channelId, [...(this.members.get(channelId) ?? []), member]);
    await this.messaging.publishEvent(
      subject.discordEvent(guildId, channelId, 'member.joined'),
      'member.joined',
      { guildId, channelId, userId: member.userId, isBot: member.isBot },
      { id: `member-joined:${channelId}:${member.userId}:${nextSnowflake()}` },
    );
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
    await this.loop?.catch(() => undefined);
    await this.messaging.client.jsm.consumers
      .delete(Streams.discordCommands, this.durable)
      .catch(() => undefined);
  }
}
