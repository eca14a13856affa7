import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import {
  EnvelopeTypes,
  Streams,
  Subjects,
  subject,
  type Envelope,
  type MessageCreated,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { uid } from '@dirigent/testing';
import { nextSnowflake } from '../../turn-coordinator/test/fake-ingest';

export interface Command {
  subject: string;
  data: Record<string, any>;
}

/**
 * Stands in for the Discord ingest: records every command and echoes each agent message
 * as the `message.created` of a webhook. `hold` keeps the echoes back until released,
 * which is how a test lands a human message in the middle of a burst.
 */
export class FakeDiscord {
  readonly commands: Command[] = [];
  /** The `message.created` of each agent message echoed (its Discord message id). */
  readonly echoes: MessageCreated[] = [];
  readonly webhookId = nextSnowflake();
  private held: (() => Promise<void>)[] = [];
  private holding = false;
  private messages?: ConsumerMessages;
  private readonly durable = uid('fake-discord').replace(/[^A-Za-z0-9_-]/g, '_');

  constructor(private readonly messaging: Messaging) {}

  async start(): Promise<void> {
    const { jsm, js } = this.messaging.client;
    await jsm.consumers.add(Streams.discordCommands, {
      durable_name: this.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: Subjects.discord.cmdAll,
    });
    this.messages = await (await js.consumers.get(Streams.discordCommands, this.durable)).consume();
    void (async () => {
      for await (const m of this.messages!) {
        const env = m.json<Envelope<Record<string, any>>>();
        this.commands.push({ subject: m.subject, data: env.data });
        m.ack();
        if (m.subject === Subjects.discord.cmdSendMessage) {
          const echo = async () =>
            this.echoes.push(
              await this.human(env.data.guildId, env.data.channelId, env.data.content, {
                authorId: this.webhookId,
                authorIsBot: true,
                webhookId: this.webhookId,
              }),
            );
          if (this.holding) this.held.push(async () => void (await echo()));
          else await echo();
        }
      }
    })();
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.messaging.client.jsm.consumers
      .delete(Streams.discordCommands, this.durable)
      .catch(() => undefined);
  }

  hold(): void {
    this.holding = true;
  }

  async release(): Promise<void> {
    this.holding = false;
    for (const f of this.held.splice(0)) await f();
  }

  sent(channelId: string) {
    return this.commands.filter(
      (c) => c.subject === Subjects.discord.cmdSendMessage && c.data.channelId === channelId,
    );
  }

  of(kind: 'add-reaction' | 'typing' | 'send-message', channelId: string) {
    return this.commands.filter(
      (c) => c.subject === `dirigent.discord.cmd.${kind}` && c.data.channelId === channelId,
    );
  }

  /** Publishes a `message.created` (a human's unless told otherwise). */
  async human(
    guildId: string,
    channelId: string,
    content: string,
    over: Partial<MessageCreated> = {},
  ): Promise<MessageCreated> {
    const m: MessageCreated = {
      guildId,
      channelId,
      messageId: nextSnowflake(),
      authorId: '700000000000000001',
      authorIsBot: false,
      content,
      createdAt: new Date().toISOString(),
      authorName: 'jen',
      ...over,
    } as MessageCreated;
    await this.messaging.publishEvent(
      subject.discordEvent(guildId, channelId, 'message.created'),
      'message.created',
      m,
      { id: `discord:${m.messageId}` },
    );
    return m;
  }
}

export { EnvelopeTypes };
