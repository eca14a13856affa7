import { Injectable, Logger } from '@nestjs/common';
import {
  Subjects,
  type MemoryContextResult,
  type MemorySearchResult,
  type Reply,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import type { MemoryPort } from '@dirigent/orchestrator';

const MEMORY_TIMEOUT_MS = 3000;

/** Memory over NATS; when it does not answer the agents go on without it (logged once). */
@Injectable()
export class NatsMemory implements MemoryPort {
  private readonly log = new Logger('orchestrator-memory');
  private warned = false;

  constructor(private readonly messaging: Messaging) {}

  async search(guildId: string, query: string): Promise<string[] | null> {
    const reply = await this.messaging.request<MemorySearchResult>(
      Subjects.memory.search,
      { guildId, query: query.slice(0, 2000), k: 8 },
      MEMORY_TIMEOUT_MS,
    );
    const data = this.answered(reply);
    return data ? data.hits.map((h) => `[${h.at}] ${h.text}`) : null;
  }

  async liveContext(guildId: string, channelId: string): Promise<string | null> {
    const reply = await this.messaging.request<MemoryContextResult>(
      Subjects.memory.context,
      { guildId, channelId, strategy: 'live' },
      MEMORY_TIMEOUT_MS,
    );
    return this.answered(reply)?.text || null;
  }

  private answered<T>(reply: Reply<T>): T | null {
    if (reply.ok) {
      this.warned = false;
      return reply.data;
    }
    if (!this.warned) {
      this.warned = true;
      this.log.warn(`memory did not answer (${reply.error.code}): agents run without memory`);
    }
    return null;
  }
}
