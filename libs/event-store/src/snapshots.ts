import { Kvm, type KV } from '@nats-io/kv';
import { jetStreamReplicas, type Messaging } from '@dirigent/messaging';
import type { DomainEvent, EventStore, StoredCommit } from './event-store';

/**
 * An aggregate's folded state at one version, kept to skip replaying its history. Only a
 * cache: whatever is wrong with it (missing, another schema, undecodable, not matching the
 * stored commit) means a full replay, never a wrong state.
 */
export interface Snapshot<S> {
  /** The version (stream sequence of the commit) the state was folded up to. */
  version: number;
  /** The envelope id of that commit: proves the stream still holds the same history. */
  commitId: string;
  state: S;
}

/** Where snapshots live: one entry per aggregate, replaced on each write. */
export interface SnapshotStore<S> {
  /** The aggregate's snapshot; undefined when there is none or it cannot be used. */
  read(subject: string): Promise<Snapshot<S> | undefined>;
  /** Stores a snapshot in the background (a newer one for the same aggregate replaces it). */
  write(subject: string, snapshot: Snapshot<S>): void;
}

/** Bumped when the stored layout changes (not the state's own schema). */
const FORMAT = 1;

interface Stored<S> extends Snapshot<S> {
  format: number;
  schema: number;
}

/**
 * Snapshots in a NATS KV bucket (history 1): the key is the aggregate's subject, so the
 * bucket holds one entry per aggregate however long its history. `schema` names the
 * version of the state's shape and of the `evolve` that folded it; a snapshot of another
 * schema is ignored (and replaced by the next write). Writes are fire-and-forget and
 * coalesced per key: at most one in flight, the latest waiting.
 */
export class KvSnapshotStore<S> implements SnapshotStore<S> {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, Snapshot<S>>();

  private constructor(
    private readonly kv: KV,
    private readonly schema: number,
    private readonly accept: (state: unknown, subject: string) => boolean,
    private readonly onError: (err: Error, subject: string) => void,
  ) {}

  static async open<S>(
    messaging: Messaging,
    opts: {
      bucket: string;
      schema: number;
      /** A last check of a decoded state (e.g. that it is the aggregate's). */
      accept?: (state: unknown, subject: string) => boolean;
      onError?: (err: Error, subject: string) => void;
    },
  ): Promise<KvSnapshotStore<S>> {
    const kv = await new Kvm(messaging.client.js).create(opts.bucket, {
      history: 1,
      replicas: jetStreamReplicas(),
    });
    return new KvSnapshotStore<S>(
      kv,
      opts.schema,
      opts.accept ?? (() => true),
      opts.onError ?? (() => undefined),
    );
  }

  async read(subject: string): Promise<Snapshot<S> | undefined> {
    let raw: string | undefined;
    try {
      const entry = await this.kv.get(subject);
      if (!entry || entry.operation !== 'PUT') return undefined;
      raw = entry.string();
    } catch (e) {
      // A snapshot that cannot be read is a snapshot that is not there.
      this.onError(e as Error, subject);
      return undefined;
    }
    return decodeSnapshot<S>(raw, this.schema, (s) => this.accept(s, subject));
  }

  write(subject: string, snapshot: Snapshot<S>): void {
    this.waiting.set(subject, snapshot);
    if (!this.inFlight.has(subject)) this.drain(subject);
  }

  private drain(subject: string): void {
    const next = this.waiting.get(subject);
    if (!next) {
      this.inFlight.delete(subject);
      return;
    }
    this.waiting.delete(subject);
    const stored: Stored<S> = { format: FORMAT, schema: this.schema, ...next };
    const run = this.kv
      .put(subject, JSON.stringify(stored))
      .then(
        () => undefined,
        (e: Error) => this.onError(e, subject),
      )
      .finally(() => this.drain(subject));
    this.inFlight.set(subject, run);
  }

  /** Resolves when every write asked for so far is stored (or failed). */
  async flush(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight.values()]);
  }

  /** Removes the bucket (tests and benches). */
  async destroy(): Promise<void> {
    await this.flush();
    await this.kv.destroy();
  }
}

/** A stored snapshot, or undefined when it is not one this reader can use. */
export function decodeSnapshot<S>(
  raw: string,
  schema: number,
  accept: (state: unknown) => boolean = () => true,
): Snapshot<S> | undefined {
  let s: Partial<Stored<S>>;
  try {
    s = JSON.parse(raw) as Partial<Stored<S>>;
  } catch {
    return undefined;
  }
  if (
    !s ||
    typeof s !== 'object' ||
    s.format !== FORMAT ||
    s.schema !== schema ||
    !Number.isSafeInteger(s.version) ||
    (s.version as number) <= 0 ||
    typeof s.commitId !== 'string' ||
    !s.state ||
    typeof s.state !== 'object' ||
    !accept(s.state)
  ) {
    return undefined;
  }
  return { version: s.version as number, commitId: s.commitId, state: s.state };
}

/**
 * The commits after `snapshot`, up to the aggregate's last one, when they continue it: the
 * commit at the snapshot's version is still the one it was folded from (same subject and
 * id: a reset stream re-grown past that sequence does not match), and each commit names the
 * version right before it as its previous one — so none is applied twice or skipped.
 * Undefined when the snapshot cannot be used.
 */
export async function commitsAfterSnapshot<E extends DomainEvent>(
  store: EventStore,
  subject: string,
  snapshot: Pick<Snapshot<unknown>, 'version' | 'commitId'>,
): Promise<StoredCommit<E>[] | undefined> {
  const [at, tail] = await Promise.all([
    store.commitAt<E>(subject, snapshot.version),
    // A snapshot is usually several commits behind: past two, a consumer reads them at once.
    store.loadCommits<E>(subject, snapshot.version, 2),
  ]);
  if (at?.envelope.id !== snapshot.commitId) return undefined;
  let previous = snapshot.version;
  for (const c of tail) {
    if (c.envelope.data?.previousVersion !== previous) return undefined;
    previous = c.seq;
  }
  return tail;
}

/** An aggregate's state folded from the store, with what a snapshot writer needs. */
export interface FoldedState<S> {
  state: S;
  version: number;
  /** Envelope id of the commit at `version` (undefined at version 0). */
  commitId?: string;
  /** Commits folded on top of the snapshot used (all of them after a full replay). */
  folded: number;
  /** Whether a snapshot was used. */
  fromSnapshot: boolean;
}

/**
 * The aggregate's state from the store: its snapshot and the commits after it when the
 * snapshot can be used, its whole history otherwise. With `before`, the state right before
 * commit `before` (a snapshot at or after it is not used).
 */
export async function foldAggregate<E extends DomainEvent, S>(
  store: EventStore,
  subject: string,
  fold: { initialState: () => S; evolve: (state: S, event: E) => S },
  opts: { snapshots?: SnapshotStore<S>; before?: number } = {},
): Promise<FoldedState<S>> {
  const { snapshots, before = Infinity } = opts;
  const snapshot = snapshots ? await snapshots.read(subject) : undefined;
  const tail =
    snapshot && snapshot.version < before
      ? await commitsAfterSnapshot<E>(store, subject, snapshot)
      : undefined;
  const base: FoldedState<S> =
    snapshot && tail
      ? { ...snapshot, folded: 0, fromSnapshot: true }
      : { state: fold.initialState(), version: 0, folded: 0, fromSnapshot: false };
  const commits = tail ?? (await store.loadCommits<E>(subject));
  let { state, version, commitId, folded } = base;
  for (const c of commits) {
    if (c.seq >= before) break;
    state = c.envelope.data.events.reduce(fold.evolve, state);
    version = c.seq;
    commitId = c.envelope.id;
    folded++;
  }
  return { state, version, commitId, folded, fromSnapshot: base.fromSnapshot };
}
