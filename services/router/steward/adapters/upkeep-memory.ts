import { DomainError, Subjects, type MemoryEpoch } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { UpkeepMemory } from '../application/upkeep-survey';

/** Memory's epochs list (`Subjects.memory.epochsList`) over NATS (the newest 200); a refusal is thrown. */
export class NatsUpkeepMemory extends UpkeepMemory {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async epochs(guildId: string, channelId?: string): Promise<MemoryEpoch[]> {
    const reply = await this.messaging.request<{ epochs: MemoryEpoch[] }>(
      Subjects.memory.epochsList,
      { guildId, ...(channelId ? { channelId } : {}), limit: 200 },
      this.timeoutMs,
    );
    if (!reply.ok) throw new DomainError(reply.error.code, reply.error.message);
    return reply.data.epochs;
  }
}
