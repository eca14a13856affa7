import { Logger } from '@nestjs/common';
import { Subjects, type MemoryContextResult, type MemorySearchResult } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { MemoryLenses } from '../application/ports';

/** `Subjects.memory.context`; empty when memory does not answer (logged once). */
export class NatsMemoryLenses extends MemoryLenses {
  private readonly log = new Logger('router:memory');
  private warned = false;

  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async hits(
    guildId: string,
    query: string,
    k: number,
    timeoutMs: number,
  ): Promise<number | undefined> {
    const reply = await this.messaging
      .request<MemorySearchResult>(
        Subjects.memory.search,
        { guildId, query: query.slice(0, 500), k },
        timeoutMs,
      )
      .catch(() => null);
    return reply?.ok ? (reply.data.hits?.length ?? 0) : undefined;
  }

  async context(
    guildId: string,
    channelId: string,
    strategy: string,
    opts: { topic?: string; presentUserIds?: string[]; focusUserId?: string },
  ): Promise<string> {
    if (strategy === 'none') return '';
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
    if (reply.ok) return reply.data.text ?? '';
    if (!this.warned) {
      this.warned = true;
      this.log.warn(`memory lenses come back empty: ${reply.error.code} ${reply.error.message}`);
    }
    return '';
  }
}
