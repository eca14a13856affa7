import { Injectable, Logger } from '@nestjs/common';
import { MikroORM, RequestContext } from '@mikro-orm/postgresql';
import type { Subscription } from '@nats-io/nats-core';
import { createValidated, MemorySearchRequest, type MemoryHit } from '@dirigent/contracts';
import { Messaging, PartitionForward, type PartitionLeases } from '@dirigent/messaging';
import { SearchMemory } from '../application/search-memory';
import { GuildPartitions } from './guild-partitions';

/** Between replicas only: a search forwarded to the replica holding the guild's partition. */
export const searchForwardSubject = (replicaId: string) =>
  `dirigent.internal.memory.${replicaId}.search`;

const FORWARD_TIMEOUT_MS = 5_000;

type Result = { hits: MemoryHit[] };

/**
 * `Subjects.memory.search` on a partitioned replica: answered by the replica holding the
 * guild's archive index (its partition's lease), so that no other replica loads the guild
 * into its memory. A guild this replica holds, an owner that does not answer (it died; its
 * lease is about to move) or no known owner: answered here, from Postgres full text for
 * the archive (this replica does not hold the guild's index).
 */
@Injectable()
export class ForwardedSearch {
  private readonly log = new Logger('memory:search-forward');
  private readonly door: PartitionForward<MemorySearchRequest, Result>;
  private leases?: PartitionLeases;
  private sub?: Subscription;

  constructor(
    private readonly search: SearchMemory,
    private readonly partitions: GuildPartitions,
    messaging: Messaging,
    private readonly orm: MikroORM,
  ) {
    this.door = new PartitionForward(
      () => messaging.client.nc,
      searchForwardSubject,
      FORWARD_TIMEOUT_MS,
      this.log,
    );
  }

  /** Starts answering the searches forwarded to this replica. */
  attach(leases: PartitionLeases): void {
    this.leases = leases;
    this.sub = this.door.serve(leases.replicaId, (body) => {
      const r = createValidated(MemorySearchRequest, body);
      return this.partitions.ownsGuild(r.guildId) ? this.here(r) : Promise.resolve(null);
    });
  }

  detach(): void {
    this.sub?.unsubscribe();
    this.sub = undefined;
    this.leases = undefined;
  }

  async run(r: MemorySearchRequest): Promise<Result> {
    const leases = this.leases;
    if (!leases || this.partitions.ownsGuild(r.guildId)) return this.search.run(r);
    const holder = leases.holderOf(this.partitions.partitionOf(r.guildId));
    const forwarded =
      holder && holder !== leases.replicaId ? await this.door.ask(holder, r) : undefined;
    return forwarded ?? this.search.run(r);
  }

  private here(r: MemorySearchRequest): Promise<Result> {
    return RequestContext.create(this.orm.em, () => this.search.run(r));
  }
}
