import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../config';
import { ChannelMembers, MemoryLenses, ModelGateway } from './clients';

/** Small: a hit count says whether memory holds something, not what. */
const MEMORY_PROBE_K = 3;

/**
 * What the other services say of the room, for a decision's inputs, each best effort (a
 * service that does not answer leaves its input out): the guild's budget fraction (the
 * gateway), the channel's members (the ingest), whether memory holds something on a topic.
 */
@Injectable()
export class RoomProbes {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly models: ModelGateway,
    private readonly members: ChannelMembers,
    private readonly memory: MemoryLenses,
  ) {}

  budgetFraction(guildId: string): Promise<number | undefined> {
    return this.models.budgetFraction(guildId).catch(() => undefined);
  }

  channelMembers(guildId: string, channelId: string): Promise<string[]> {
    return this.members.list(guildId, channelId).catch(() => [] as string[]);
  }

  /** Hits that `channelId`'s audience may see: the decision is about answering there. */
  memoryHits(guildId: string, channelId: string, topic: string): Promise<number | undefined> {
    return this.memory
      .hits(guildId, channelId, topic, MEMORY_PROBE_K, this.config.DIRIGENT_ROUTER_MEMORY_PROBE_MS)
      .catch(() => undefined);
  }
}
