import { Inject, Injectable, Logger } from '@nestjs/common';
import { partitionOf, type PartitionOwner } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { ArchiveIndex } from '../adapters/archive-index';
import type { MemoryConfig } from '../config';

/** `guildId=k,guildId=k` into a map, each k a partition below `partitions`. */
export function pinnedGuilds(setting: string, partitions: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const pair of setting.split(',')) {
    if (!pair.trim()) continue;
    const [guildId, k] = pair.split('=').map((s) => s.trim());
    if (Number(k) >= partitions) {
      throw new Error(
        `DIRIGENT_MEMORY_PINNED_GUILDS pins ${guildId} to partition ${k} of ${partitions}`,
      );
    }
    out.set(guildId, Number(k));
  }
  return out;
}

/**
 * Which guilds this memory replica holds (DIRIGENT_MEMORY_PARTITIONS > 0): the guilds of
 * the partitions it leases (`PartitionLeases`, as the coordinator's channels). A guild's
 * partition is the one it is pinned to (DIRIGENT_MEMORY_PINNED_GUILDS), or else FNV-1a of
 * its id over the partitions no guild is pinned to, so that a pinned big guild shares its
 * partition — and the replica leasing it — with no other. Winning a partition preloads its
 * guilds' archive indexes; losing one drops them (the new holder loads them).
 */
@Injectable()
export class GuildPartitions implements PartitionOwner {
  private readonly log = new Logger('memory:partitions');
  readonly partitions: number;
  private readonly pinned: Map<string, number>;
  /** The partitions unpinned guilds hash over. */
  private readonly shared: number[];
  private readonly owned = new Set<number>();

  constructor(
    @Inject(SERVICE_CONFIG) config: MemoryConfig,
    private readonly archive: ArchiveIndex,
  ) {
    this.partitions = config.DIRIGENT_MEMORY_PARTITIONS;
    this.pinned = pinnedGuilds(config.DIRIGENT_MEMORY_PINNED_GUILDS, this.partitions);
    const taken = new Set(this.pinned.values());
    this.shared = [...Array(this.partitions).keys()].filter((k) => !taken.has(k));
    if (this.enabled && !this.shared.length) {
      throw new Error('DIRIGENT_MEMORY_PINNED_GUILDS pins a guild to every partition');
    }
    if (this.enabled) archive.owns = (guildId) => this.ownsGuild(guildId);
  }

  get enabled(): boolean {
    return this.partitions > 0;
  }

  partitionOf(guildId: string): number {
    if (!this.enabled) return 0;
    return this.pinned.get(guildId) ?? this.shared[partitionOf(guildId, this.shared.length)];
  }

  ownsGuild(guildId: string): boolean {
    return !this.enabled || this.owned.has(this.partitionOf(guildId));
  }

  async acquire(k: number): Promise<void> {
    this.owned.add(k);
    void this.archive
      .preload((guildId) => this.partitionOf(guildId) === k)
      .catch((e: Error) => this.log.warn(`partition ${k} not preloaded: ${e.message}`));
  }

  async release(k: number): Promise<void> {
    this.owned.delete(k);
    this.archive.evict((guildId) => this.partitionOf(guildId) === k);
  }
}
