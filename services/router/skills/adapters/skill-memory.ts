import {
  Subjects,
  type MemoryContextResult,
  type MemoryDossier,
  type MemorySearchResult,
  type Reply,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SkillError, type SkillMemory } from '@dirigent/skills';

/**
 * The memory skills' reads over NATS (`dirigent.memory.*`), always in the call's guild.
 * Memory not answering is an error the caller sees (`UNAVAILABLE`), not an empty memory.
 */
export class NatsSkillMemory implements SkillMemory {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {}

  private async ask<T>(subject: string, data: unknown): Promise<Reply<T>> {
    return this.messaging.request<T>(subject, data, this.timeoutMs);
  }

  private static data<T>(reply: Reply<T>): T {
    if (!reply.ok) throw new SkillError(reply.error.code, `memory: ${reply.error.message}`);
    return reply.data;
  }

  async search(guildId: string, query: string, opts: Parameters<SkillMemory['search']>[2]) {
    const reply = await this.ask<MemorySearchResult>(Subjects.memory.search, {
      guildId,
      query,
      ...opts,
    });
    return NatsSkillMemory.data(reply).hits;
  }

  async dossier(
    guildId: string,
    userId: string,
    forChannelId: string,
  ): Promise<MemoryDossier | null> {
    const reply = await this.ask<MemoryDossier>(Subjects.memory.dossierGet, {
      guildId,
      userId,
      forChannelId,
    });
    if (!reply.ok && reply.error.code === 'NOT_FOUND') return null;
    return NatsSkillMemory.data(reply);
  }

  async context(
    guildId: string,
    channelId: string,
    strategy: 'live' | 'live+lore',
    opts: { topic?: string; forChannelId?: string },
  ): Promise<MemoryContextResult> {
    const reply = await this.ask<MemoryContextResult>(Subjects.memory.context, {
      guildId,
      channelId,
      strategy,
      ...opts,
    });
    return NatsSkillMemory.data(reply);
  }
}
