import {
  DomainError,
  Subjects,
  type MemoryHighlight,
  type MemoryHit,
  type MemorySearchResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { ArchiveMemory } from '../application/archive-highlights';

/** Memory's search and highlight layer over NATS; a refusal is thrown as its DomainError. */
export class NatsArchiveMemory extends ArchiveMemory {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async search(guildId: string, channelId: string, about: string, k: number): Promise<MemoryHit[]> {
    const reply = await this.messaging.request<MemorySearchResult>(
      Subjects.memory.search,
      // Read for the channel's own audience: what is quoted there was said there.
      {
        guildId,
        query: about,
        k,
        layers: ['highlights', 'archive'],
        channelId,
        forChannelId: channelId,
      },
      this.timeoutMs,
    );
    if (!reply.ok) throw new DomainError(reply.error.code, reply.error.message);
    return reply.data.hits;
  }

  async keep(guildId: string, channelId: string, messageId: string): Promise<MemoryHighlight> {
    const reply = await this.messaging.request<MemoryHighlight>(
      Subjects.memory.highlightAdd,
      { guildId, channelId, messageId, kind: 'manual' },
      this.timeoutMs,
    );
    if (!reply.ok) throw new DomainError(reply.error.code, reply.error.message);
    return reply.data;
  }
}
