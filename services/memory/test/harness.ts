import type { INestApplication } from '@nestjs/common';
import { Streams, subject, type MessageCreated, type Reply } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { startServiceApp } from '@dirigent/service-kit';
import {
  closeMessaging,
  snowflake,
  testDatabaseUrl,
  testMessaging,
  testNatsUrl,
  uid,
  waitFor,
} from '@dirigent/testing';
import { MemoryService } from '../memory.module';

export function memoryEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    MEMORY_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    DIRIGENT_MEMORY_EMBEDDER: 'local',
    ...extra,
  };
}

/** A Discord guild as the tests write to it: messages, deletions and reactions on the wire. */
export class TestGuild {
  readonly guildId = snowflake();
  private last = Date.now() - 3_600_000;

  constructor(private readonly messaging: Messaging) {}

  /** Publishes `message.created` (a fresh envelope id each time, as a re-publish would). */
  async say(
    channelId: string,
    authorId: string,
    content: string,
    extra: Partial<MessageCreated> = {},
  ): Promise<string> {
    const messageId = extra.messageId ?? snowflake();
    this.last += 1000;
    const data: MessageCreated = {
      guildId: this.guildId,
      channelId,
      messageId,
      authorId,
      authorIsBot: false,
      content,
      createdAt: new Date(this.last).toISOString(),
      ...extra,
    };
    await this.messaging.publishEvent(
      subject.discordEvent(this.guildId, channelId, 'message.created'),
      'message.created',
      data,
      { id: uid('mc') },
    );
    return messageId;
  }

  async delete(channelId: string, messageId: string): Promise<void> {
    await this.messaging.publishEvent(
      subject.discordEvent(this.guildId, channelId, 'message.deleted'),
      'message.deleted',
      { guildId: this.guildId, channelId, messageId },
    );
  }

  async react(channelId: string, messageId: string, userId: string, emoji = '🔥') {
    await this.messaging.publishEvent(
      subject.discordEvent(this.guildId, channelId, 'reaction.added'),
      'reaction.added',
      { guildId: this.guildId, channelId, messageId, userId, emoji },
    );
  }
}

/** The memory service in process with a test connection to talk to it. */
export class MemoryHarness {
  private constructor(
    readonly messaging: Messaging,
    readonly app?: INestApplication,
  ) {}

  /** Only the test connection, for a memory service running as a child process. */
  static async connect(): Promise<MemoryHarness> {
    return new MemoryHarness(await testMessaging(uid('memory-test')));
  }

  static async start(extra: Record<string, string> = {}): Promise<MemoryHarness> {
    const messaging = await testMessaging(uid('memory-test'));
    const { app } = await startServiceApp(MemoryService, memoryEnv(extra));
    return new MemoryHarness(messaging, app);
  }

  guild(): TestGuild {
    return new TestGuild(this.messaging);
  }

  request<T>(subj: string, data: unknown, timeoutMs = 10_000): Promise<Reply<T>> {
    return this.messaging.request<T>(subj, data, timeoutMs);
  }

  async ok<T>(subj: string, data: unknown): Promise<T> {
    const r = await this.request<T>(subj, data);
    if (!r.ok) throw new Error(`${subj}: ${r.error.code} ${r.error.message}`);
    return r.data;
  }

  /** Waits until the dossier of `userId` counts `n` messages (ingest caught up). */
  async waitForCount(guildId: string, userId: string, n: number, timeoutMs = 15_000) {
    await waitFor(
      async () => {
        const d = await this.ok<{ messageCount: number }>('dirigent.memory.dossier.get', {
          guildId,
          userId,
        });
        return d.messageCount === n;
      },
      timeoutMs,
      50,
      `${n} messages of ${userId}`,
    );
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await closeMessaging(this.messaging);
  }
}

/** How many `epoch.closed` events the stream holds for a channel. */
export async function epochEvents(h: MemoryHarness, guildId: string, channelId: string) {
  const subj = subject.memoryEvent(guildId, channelId, 'epoch.closed');
  const info = await h.messaging.client.jsm.streams.info(Streams.memoryEvents, {
    subjects_filter: subj,
  });
  return info.state.subjects?.[subj] ?? 0;
}
