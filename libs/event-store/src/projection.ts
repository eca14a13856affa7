import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { Streams, type Envelope } from '@dirigent/contracts';
import type { Messaging, RunningConsumer } from '@dirigent/messaging';
import { ProjectionCheckpoint } from '@dirigent/persistence';
import { COMMIT_TYPE, type Commit, type DomainEvent } from './event-store';

export interface ProjectionMeta {
  subject: string;
  seq: number;
  envelope: Envelope<Commit>;
}

/** A read model fed by the event store. `apply` runs inside the checkpoint's transaction. */
export interface Projection<E extends DomainEvent = DomainEvent> {
  /** Also the checkpoint key and the durable consumer name. */
  name: string;
  /** Which aggregates it reads, e.g. `dirigent.es.channel.>`. */
  filterSubject: string;
  apply(em: EntityManager, event: E, meta: ProjectionMeta): Promise<void>;
}

/**
 * Applies a commit to a projection exactly once: the checkpoint row is locked, compared
 * with the commit's stream sequence, and advanced in the same transaction as the rows the
 * projection writes. A redelivered commit (crash before the ack) is skipped.
 * Returns false when the commit had already been applied.
 */
export async function applyOnce<E extends DomainEvent>(
  em: EntityManager,
  projection: Projection<E>,
  seq: number,
  subject: string,
  env: Envelope<Commit<E>>,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    await tx
      .getConnection()
      .execute(
        `insert into projection_checkpoint (name, last_seq, updated_at) values (?, 0, now()) on conflict (name) do nothing`,
        [projection.name],
        'run',
        tx.getTransactionContext(),
      );
    const cp = await tx.findOneOrFail(
      ProjectionCheckpoint,
      { name: projection.name },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (Number(cp.lastSeq) >= seq) return false;
    for (const event of env.data.events) {
      await projection.apply(tx, event, { subject, seq, envelope: env as Envelope<Commit> });
    }
    cp.lastSeq = String(seq);
    cp.updatedAt = new Date();
    return true;
  });
}

/** Runs a projection as a durable, ordered consumer of the event store. */
export function runProjection<E extends DomainEvent>(
  messaging: Messaging,
  em: EntityManager,
  projection: Projection<E>,
): Promise<RunningConsumer> {
  return messaging.consume<Commit<E>>({
    stream: Streams.eventStore,
    durable: projection.name,
    filterSubject: projection.filterSubject,
    maxDeliver: 10,
    ackWaitMs: 30_000,
    maxAckPending: 1,
    handler: async (_data, env, msg) => {
      if (env.type !== COMMIT_TYPE) return;
      await applyOnce(em.fork(), projection, msg.seq, msg.subject, env);
    },
  });
}
