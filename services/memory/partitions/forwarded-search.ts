import { Injectable, Logger } from '@nestjs/common';
import { MikroORM, RequestContext } from '@mikro-orm/postgresql';
import type { Subscription } from '@nats-io/nats-core';
import { createValidated, MemorySearchRequest, type MemoryHit } from '@dirigent/contracts';
import { Messaging, type PartitionLeases } from '@dirigent/messaging';
import { SearchMemory } from '../application/search-memory';
import { GuildPartitions } from './guild-partitions';

/** Between replicas only: a search forwarded to the replica holding the guild's partition. */
export const searchForwardSubject = (replicaId: string) =>
  `dirigent.internal.memory.${replicaId}.search`;

const FORWARD_TIMEOUT_MS = 5_000;

type Result = { hits: MemoryHit[] };
type Forwarded = { ok: true; data: Result } | { ok: false };

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
  private leases?: PartitionLeases;
  private sub?: Subscription;

  constructor(
    private readonly search: SearchMemory,
    private readonly partitions: GuildPartitions,
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
  ) {}

  /** Starts answering the searches forwarded to this replica. */
  attach(leases: PartitionLeases): void {
    this.leases = leases;
    this.sub = this.messaging.client.nc.subscribe(searchForwardSubject(leases.replicaId), {
      callback: (_e, m) => {
        void (async () => {
          let reply: Forwarded = { ok: false };
          try {
            const r = createValidated(MemorySearchRequest, m.json());
            if (this.partitions.ownsGuild(r.guildId))
              reply = { ok: true, data: await this.here(r) };
          } catch (e) {
            this.log.warn({ err: (e as Error).message, msg: 'forwarded search failed' });
          }
          m.respond(JSON.stringify(reply));
        })();
      },
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
    if (holder && holder !== leases.replicaId) {
      try {
        const m = await this.messaging.client.nc.request(
          searchForwardSubject(holder),
          JSON.stringify(r),
          { timeout: FORWARD_TIMEOUT_MS },
        );
        const reply = m.json<Forwarded>();
        if (reply.ok) return reply.data;
      } catch (e) {
        this.log.warn({ holder, err: (e as Error).message, msg: 'search not forwarded' });
      }
    }
    return this.search.run(r);
  }

  private here(r: MemorySearchRequest): Promise<Result> {
    return RequestContext.create(this.orm.em, () => this.search.run(r));
  }
}
