import { Logger } from '@nestjs/common';
import {
  Subjects,
  type MemoryContextResult,
  type MemorySearchResult,
  type Reply,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import type { MemoryPort } from '@dirigent/orchestrator';
import { MemoryLenses } from '../application/clients';

/**
 * Memory over NATS, for the router and the orchestrator alike: `Subjects.memory.context`
 * (a lens) and `Subjects.memory.search` (hits, or their count as a routing input). When memory does not answer, lenses come back
 * empty and searches `null` (said once, until it answers again). The orchestrator sees it
 * as its `MemoryPort` ({@link memoryPort}).
 */
export class NatsMemoryLenses extends MemoryLenses {
  private readonly log = new Logger('router:memory');
  private warned = false;
  /** The same client as `@dirigent/orchestrator`'s port (the `live` lens, search hits as lines). */
  readonly memoryPort: MemoryPort = {
    search: async (guildId, query, forChannelId) =>
      (await this.search(guildId, query, forChannelId))?.map((h) => `[${h.at}] ${h.text}`) ?? null,
    liveContext: async (guildId, channelId) =>
      (await this.lens(guildId, channelId, 'live', {}))?.text || null,
  };

  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async context(
    guildId: string,
    channelId: string,
    strategy: string,
    opts: { topic?: string; presentUserIds?: string[]; focusUserId?: string },
  ): Promise<string> {
    if (strategy === 'none') return '';
    return (await this.lens(guildId, channelId, strategy, opts))?.text ?? '';
  }

  /** Hits for the audience of `forChannelId`, the channel the answer is posted in. */
  async search(
    guildId: string,
    query: string,
    forChannelId: string,
    k = 8,
    timeoutMs = this.timeoutMs,
  ): Promise<MemorySearchResult['hits'] | null> {
    const reply = await this.messaging.request<MemorySearchResult>(
      Subjects.memory.search,
      { guildId, query: query.slice(0, 2000), k, forChannelId },
      timeoutMs,
    );
    return this.answered(reply)?.hits ?? null;
  }

  async hits(
    guildId: string,
    channelId: string,
    query: string,
    k: number,
    timeoutMs: number,
  ): Promise<number | undefined> {
    const found = await this.search(guildId, query.slice(0, 500), channelId, k, timeoutMs).catch(
      () => null,
    );
    return found ? found.length : undefined;
  }

  private async lens(
    guildId: string,
    channelId: string,
    strategy: string,
    opts: { topic?: string; presentUserIds?: string[]; focusUserId?: string },
  ): Promise<MemoryContextResult | null> {
    const reply = await this.messaging.request<MemoryContextResult>(
      Subjects.memory.context,
      {
        guildId,
        channelId,
        strategy,
        maxTokens: 1500,
        ...(opts.topic ? { topic: opts.topic.slice(0, 2000) } : {}),
        ...(opts.presentUserIds?.length
          ? { presentUserIds: opts.presentUserIds.slice(0, 100) }
          : {}),
        ...(opts.focusUserId ? { focusUserId: opts.focusUserId } : {}),
      },
      this.timeoutMs,
    );
    return this.answered(reply);
  }

  private answered<T>(reply: Reply<T>): T | null {
    if (reply.ok) {
      this.warned = false;
      return reply.data;
    }
    if (!this.warned) {
      this.warned = true;
      this.log.warn(
        `memory did not answer (${reply.error.code} ${reply.error.message}): going on without it`,
      );
    }
    return null;
  }
}
