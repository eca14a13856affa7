import type { EntityManager } from '@mikro-orm/postgresql';
import type { Envelope } from '@dirigent/contracts';
import { ProjectionCheckpoint } from '@dirigent/persistence';
import type { Commit, DomainEvent } from './event-store';

/** One stored commit as a projection sees it. */
export interface ProjectionCommit<E extends DomainEvent = DomainEvent> {
  subject: string;
  /** Stream sequence: the aggregate's version after this commit. */
  seq: number;
  envelope: Envelope<Commit<E>>;
}

/** A read model fed by the event store. `apply` runs inside the checkpoint's transaction. */
export interface Projection<E extends DomainEvent = DomainEvent> {
  /** The checkpoint key. */
  name: string;
  /** Which aggregates it reads, e.g. `dirigent.es.channel.>` (one filter: NATS 2.9). */
  filterSubject: string;
  /** Applies a batch of commits, in stream order, none of them applied before. */
  apply(em: EntityManager, commits: readonly ProjectionCommit<E>[]): Promise<void>;
  /**
   * Empties the read model, in the checkpoint's transaction, before it is rebuilt from a
   * recreated event store stream (whose sequences restarted at 1). Without it the rows of
   * the old stream stay and the new commits are applied over them.
   */
  reset?(em: EntityManager): Promise<void>;
}

/** Which incarnation of the event store stream a checkpoint's sequence belongs to. */
export interface StreamGeneration {
  /** The stream's creation time, as the server reports it. */
  created: string;
  /** Its last sequence (0 when empty). */
  lastSeq: number;
}

/** Thrown when a batch was read from another incarnation of the stream than the checkpoint's. */
export class StreamRecreatedError extends Error {}

/** The last applied sequence, without locking (where to start reading). */
export async function readCheckpoint(em: EntityManager, name: string): Promise<number> {
  const cp = await em.fork().findOne(ProjectionCheckpoint, { name });
  return cp ? Number(cp.lastSeq) : 0;
}

/** A statement in `em`'s transaction, its parameters bound (not inlined), and its rows. */
async function rows<R>(em: EntityManager, query: string, params: unknown[]): Promise<R[]> {
  const q = em.getKnex().raw(query, params as never[]);
  const tx = em.getTransactionContext();
  if (tx) void q.transacting(tx);
  return ((await q) as { rows: R[] }).rows;
}

const LOCK_CHECKPOINT =
  'select last_seq, stream_created from projection_checkpoint where name = ? for update';
const CREATE_CHECKPOINT = `insert into projection_checkpoint (name, last_seq, updated_at)
  values (?, 0, now()) on conflict (name) do nothing`;
const ADVANCE_CHECKPOINT =
  'update projection_checkpoint set last_seq = ?, updated_at = now() where name = ?';

/**
 * Applies commits to a projection exactly once: the checkpoint row is locked, the commits
 * at or below it are dropped (another runner, or this one before a crash, applied them),
 * the rest are applied and the checkpoint advanced, all in one transaction.
 * Returns the checkpoint after the transaction and the commits it applied.
 *
 * The checkpoint is read and written with plain statements, not as an entity: the ORM's
 * locked `findOne` and the flush of the changed entity cost more CPU than the rest of a
 * small batch (the coordinator's channel projection at the tail, a few commits a batch).
 */
export async function applyBatch<E extends DomainEvent>(
  em: EntityManager,
  projection: Projection<E>,
  commits: readonly ProjectionCommit<E>[],
  streamCreated?: string,
): Promise<{ checkpoint: number; applied: ProjectionCommit<E>[] }> {
  return em.fork().transactional(async (tx) => {
    const cp = await lockCheckpoint(tx, projection.name);
    if (streamCreated && cp.stream_created && cp.stream_created !== streamCreated) {
      throw new StreamRecreatedError(
        `projection ${projection.name}: batch read from stream created ${streamCreated}, checkpoint of ${cp.stream_created}`,
      );
    }
    const name = projection.name;
    const before = Number(cp.last_seq);
    const fresh = commits.filter((c) => c.seq > before);
    if (fresh.length === 0) return { checkpoint: before, applied: [] };
    await projection.apply(tx, fresh);
    const last = fresh[fresh.length - 1].seq;
    await rows(tx, ADVANCE_CHECKPOINT, [String(last), name]);
    return { checkpoint: last, applied: fresh };
  });
}

type CheckpointRow = { last_seq: string; stream_created: string | null };

async function lockCheckpoint(tx: EntityManager, name: string): Promise<CheckpointRow> {
  let [cp] = await rows<CheckpointRow>(tx, LOCK_CHECKPOINT, [name]);
  if (!cp) {
    await rows(tx, CREATE_CHECKPOINT, [name]);
    [cp] = await rows<CheckpointRow>(tx, LOCK_CHECKPOINT, [name]);
    if (!cp) throw new Error(`projection checkpoint ${name} could not be created`);
  }
  return cp;
}

/**
 * Where a projection resumes on `stream`: its checkpoint, when the checkpoint belongs to
 * this incarnation of the stream. A stream created since the checkpoint was written (another
 * creation time, or, for a checkpoint that recorded none, fewer commits than it applied) is
 * a lost event store: the read model is emptied ({@link Projection.reset}) and the
 * checkpoint set back to 0 in one transaction, so the projection rebuilds from the new
 * stream. Returns the position and whether it was reset.
 */
export async function checkpointFor(
  em: EntityManager,
  projection: Projection,
  stream: StreamGeneration,
): Promise<{
  position: number;
  reset: boolean;
  was?: { lastSeq: number; created: string | null };
}> {
  return em.fork().transactional(async (tx) => {
    const cp = await lockCheckpoint(tx, projection.name);
    const lastSeq = Number(cp.last_seq);
    const recreated = cp.stream_created
      ? cp.stream_created !== stream.created
      : lastSeq > stream.lastSeq;
    if (!recreated) {
      if (cp.stream_created !== stream.created) {
        await rows(tx, 'update projection_checkpoint set stream_created = ? where name = ?', [
          stream.created,
          projection.name,
        ]);
      }
      return { position: lastSeq, reset: false };
    }
    await projection.reset?.(tx);
    await rows(
      tx,
      `update projection_checkpoint set last_seq = 0, stream_created = ?, updated_at = now()
       where name = ?`,
      [stream.created, projection.name],
    );
    return { position: 0, reset: true, was: { lastSeq, created: cp.stream_created } };
  });
}
