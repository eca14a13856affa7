import { Inject, Injectable, Logger } from '@nestjs/common';
import { partitionOf, type PartitionOwner } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { ArchiveIndex } from '../adapters/archive-index';
import { answersQueries, type MemoryConfig } from '../config';

/**
 * A guild's partition among `partitions`: the one `pinned` (`guildId=k,guildId=k`) names,
 * or else FNV-1a of its id over the partitions no guild is pinned to. Throws on a pin
 * outside the partitions, or pins that leave no partition for the other guilds.
 *
 * @example
 * guildPartitioner(3, '42=0')('42'); // 0; every other guild 1 or 2
 */
export function guildPartitioner(partitions: number, pinned: string): (guildId: string) => number {
  const pins = new Map<string, number>();
  for (const pair of pinned.split(',')) {
    if (!pair.trim()) continue;
    const [guildId, k] = pair.split('=').map((s) => s.trim());
    if (!(Number(k) < partitions)) {
      throw new Error(
        `DIRIGENT_MEMORY_PINNED_GUILDS pins ${guildId} to partition ${k} of ${partitions}`,
      );
    }
    pins.set(guildId, Number(k));
  }
  const taken = new Set(pins.values());
  const shared = [...Array(partitions).keys()].filter((k) => !taken.has(k));
  if (!shared.length)
    throw new Error('DIRIGENT_MEMORY_PINNED_GUILDS pins a guild to every partition');
  return (guildId) => pins.get(guildId) ?? shared[partitionOf(guildId, shared.length)];
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
  private readonly partition: (guildId: string) => number;
  private readonly owned = new Set<number>();

  constructor(
    @Inject(SERVICE_CONFIG) config: MemoryConfig,
    private readonly archive: ArchiveIndex,
  ) {
    // A `jobs` replica holds no index: it takes no partition from the replicas that search.
    this.partitions = answersQueries(config.DIRIGENT_MEMORY_ROLE ?? 'all')
      ? config.DIRIGENT_MEMORY_PARTITIONS
      : 0;
    this.partition = this.enabled
      ? guildPartitioner(this.partitions, config.DIRIGENT_MEMORY_PINNED_GUILDS)
      : () => 0;
    if (this.enabled) archive.owns = (guildId) => this.ownsGuild(guildId);
  }

  get enabled(): boolean {
    return this.partitions > 0;
  }

  partitionOf(guildId: string): number {
    return this.partition(guildId);
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
