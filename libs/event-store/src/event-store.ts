import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  type ConsumerMessages,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import { EnvelopeTypes, Streams, envelope, type Envelope } from '@dirigent/contracts';
import { storedMessage, type Messaging } from '@dirigent/messaging';

/** A domain event as stored: a discriminated union member with JSON data. */
export interface DomainEvent {
  type: string;
  data?: unknown;
}

/** One append: the events a single decision produced, stored atomically in one message. */
export interface Commit<E extends DomainEvent = DomainEvent> {
  events: E[];
  /**
   * The aggregate version the commit was appended on, so a reader of the stream can tell
   * whether it holds the state right before this commit or missed one and must reload.
   */
  previousVersion?: number;
}

export const COMMIT_TYPE = EnvelopeTypes.commit;

/** NATS header naming the process that appended a commit. */
export const WRITER_HEADER = 'Dirigent-Writer';

export interface StoredCommit<E extends DomainEvent = DomainEvent> {
  /** Stream sequence of the commit: the aggregate's version after it. */
  seq: number;
  envelope: Envelope<Commit<E>>;
}

/** Thrown by {@link EventStore.append} when the aggregate moved on since `expectedVersion`. */
export class ConcurrencyError extends Error {
  constructor(
    readonly subject: string,
    readonly expectedVersion: number,
  ) {
    super(`aggregate ${subject} is no longer at version ${expectedVersion}`);
    this.name = 'ConcurrencyError';
  }
}

const WRONG_LAST_SEQUENCE = 10071;

export interface AppendMeta {
  /** Commit id: re-appending the same id is de-duplicated by JetStream. */
  id?: string;
  correlationId?: string;
  causationId?: string;
  at?: Date;
}

/**
 * An event store on one JetStream stream, one subject per aggregate
 * (`dirigent.es.<aggregate>.<id>`). The version of an aggregate is the stream sequence of
 * its last commit (0 when it has none); `append` uses `Nats-Expected-Last-Subject-Sequence`
 * so two writers at the same version cannot both succeed.
 *
 * @example
 * const { version, events } = await store.load(subject);
 * await store.append(subject, [{ type: 'ModeSet', data: { mode: 'chat' } }], version);
 */
/** A watch's consumer is gone with these statuses (or two missed heartbeats). */
const WATCH_LOST = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);
const WATCH_EXPIRES_MS = 5000;
const WATCH_RETRY_MS = 500;

export class EventStore {
  /**
   * Names this process's commits (header {@link WRITER_HEADER}), so that a reader can tell
   * another replica's writes from its own without waiting for its own acks.
   */
  readonly writerId = randomUUID();

  constructor(
    private readonly messaging: Messaging,
    private readonly stream: string = Streams.eventStore,
  ) {}

  /** Appends the events as one commit; returns the new version. */
  async append<E extends DomainEvent>(
    subject: string,
    events: E[],
    expectedVersion: number,
    meta: AppendMeta = {},
  ): Promise<number> {
    if (events.length === 0) return expectedVersion;
    const env = envelope<Commit<E>>(
      COMMIT_TYPE,
      this.messaging.source,
      { events, previousVersion: expectedVersion },
      meta,
    );
    try {
      const ack = await this.messaging.publish(subject, env, {
        expectLastSubjectSequence: expectedVersion,
        headers: { [WRITER_HEADER]: this.writerId },
      });
      return ack.seq;
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === WRONG_LAST_SEQUENCE) {
        throw new ConcurrencyError(subject, expectedVersion);
      }
      throw e;
    }
  }

  /** The aggregate's current version without reading its events. */
  async version(subject: string): Promise<number> {
    return (await this.lastCommit(subject))?.seq ?? 0;
  }

  /** The aggregate's last commit (undefined: it has none). */
  private async lastCommit<E extends DomainEvent>(
    subject: string,
  ): Promise<StoredCommit<E> | undefined> {
    return this.getCommit<E>({ last_by_subj: subject });
  }

  /** The aggregate's commit at version `seq` (undefined: the stream holds none of it there). */
  async commitAt<E extends DomainEvent>(
    subject: string,
    seq: number,
  ): Promise<StoredCommit<E> | undefined> {
    return this.getCommit<E>({ seq }, subject);
  }

  private async getCommit<E extends DomainEvent>(
    query: { last_by_subj: string } | { seq: number },
    subject?: string,
  ): Promise<StoredCommit<E> | undefined> {
    const sm = await storedMessage(this.messaging.client.jsm, this.stream, query);
    if (!sm || (subject !== undefined && sm.subject !== subject)) return undefined;
    return { seq: sm.seq, envelope: sm.json<Envelope<Commit<E>>>() };
  }

  /**
   * The commits after `after` when they are few (a cache a commit or two behind, e.g. after
   * another replica wrote): read backwards from the last one along `previousVersion`, one
   * direct get each, instead of a consumer. Undefined when the chain is longer than
   * `max` or a commit does not name its previous version.
   */
  private async recentCommits<E extends DomainEvent>(
    last: StoredCommit<E>,
    after: number,
    max = 8,
  ): Promise<StoredCommit<E>[] | undefined> {
    const chain: StoredCommit<E>[] = [];
    for (let c: StoredCommit<E> | undefined = last; c && chain.length < max; ) {
      chain.unshift(c);
      const previous: unknown = c.envelope.data?.previousVersion;
      if (typeof previous !== 'number') return undefined;
      if (previous <= after) return chain;
      c = await this.getCommit<E>({ seq: previous });
    }
    return undefined;
  }

  /**
   * The aggregate's commits after version `after` (all of them from 0), in order. Up to
   * `maxChain` of them are read one by one backwards from the last, more through a consumer.
   */
  async loadCommits<E extends DomainEvent>(
    subject: string,
    after = 0,
    maxChain = 8,
  ): Promise<StoredCommit<E>[]> {
    const lastCommit = await this.lastCommit<E>(subject);
    const last = lastCommit?.seq ?? 0;
    if (!lastCommit || last <= after) return [];
    if (after > 0) {
      const recent = await this.recentCommits(lastCommit, after, maxChain);
      if (recent) return recent;
    }
    // An ephemeral consumer with a single filter subject (NATS 2.9 has no multi-filter
    // consumers, which the client's ordered consumer asks for); gone when we are done.
    const { jsm, js } = this.messaging.client;
    const info = await jsm.consumers.add(this.stream, {
      filter_subject: subject,
      ...(after > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 }
        : { deliver_policy: DeliverPolicy.All }),
      ack_policy: AckPolicy.None,
      mem_storage: true,
      inactive_threshold: nanos(30_000),
    });
    const out: StoredCommit<E>[] = [];
    try {
      const consumer = await js.consumers.get(this.stream, info.name);
      // num_pending is exact at creation, so each fetch asks for what is there and
      // returns at once instead of waiting out its expiry.
      let remaining = info.num_pending;
      while (remaining > 0 && (out.length === 0 || out[out.length - 1].seq < last)) {
        const batch = await consumer.fetch({
          max_messages: Math.min(remaining, 500),
          expires: 5000,
        });
        let got = 0;
        for await (const m of batch) {
          got++;
          remaining--;
          out.push({ seq: m.seq, envelope: m.json<Envelope<Commit<E>>>() });
        }
        if (got === 0) throw new Error(`event store read of ${subject} stalled before seq ${last}`);
      }
    } finally {
      await jsm.consumers.delete(this.stream, info.name).catch(() => undefined);
    }
    return out;
  }

  /** The aggregate's events, in order, and its version. */
  async load<E extends DomainEvent>(subject: string): Promise<{ version: number; events: E[] }> {
    const commits = await this.loadCommits<E>(subject);
    return {
      version: commits.length ? commits[commits.length - 1].seq : 0,
      events: commits.flatMap((c) => c.envelope.data.events),
    };
  }

  /**
   * Calls `onCommit` for every new commit on `filter` (a subject or wildcard) as it is
   * stored, from now on, with whether this process wrote it; `stop()` ends the watch. Used
   * to keep caches coherent with other replicas. Delivery is best effort (no acks): a
   * reader that must not miss a commit uses a durable consumer or a projection runner.
   * A watch whose consumer is lost (its stream deleted and created again, a NATS restart)
   * starts again from then on and calls `onGap`: commits may have been missed meanwhile.
   */
  async watch(
    filter: string,
    onCommit: (c: { subject: string; seq: number; ownWrite: boolean }) => void,
    onGap?: () => void,
  ): Promise<{ stop(): Promise<void> }> {
    const { jsm, js } = this.messaging.client;
    let stopped = false;
    let current: { messages: ConsumerMessages; name: string } | undefined;
    const open = async () => {
      const info = await jsm.consumers.add(this.stream, {
        filter_subject: filter,
        deliver_policy: DeliverPolicy.New,
        ack_policy: AckPolicy.None,
        mem_storage: true,
        inactive_threshold: nanos(30_000),
        // Subject, sequence and writer header are all a watcher reads: not the commit's body
        // (each replica of a service watches every commit).
        headers_only: true,
      });
      const consumer = await js.consumers.get(this.stream, info.name);
      const messages = await consumer.consume({
        max_messages: 256,
        abort_on_missing_resource: true,
        expires: WATCH_EXPIRES_MS,
      });
      void (async () => {
        for await (const st of messages.status()) {
          if (WATCH_LOST.has(st.type) || (st.type === 'heartbeats_missed' && st.count >= 2)) {
            messages.stop();
            return;
          }
        }
      })().catch(() => undefined);
      current = { messages, name: info.name };
      return current;
    };
    const first = await open();
    const loop = (async () => {
      let session: typeof first | undefined = first;
      while (!stopped) {
        if (session) {
          try {
            for await (const m of session.messages) {
              onCommit({
                subject: m.subject,
                seq: m.seq,
                ownWrite: m.headers?.get(WRITER_HEADER) === this.writerId,
              });
            }
          } catch {
            // Lost: opened again below.
          }
          await jsm.consumers.delete(this.stream, session.name).catch(() => undefined);
          session = undefined;
          if (stopped) return;
        }
        await new Promise((r) => setTimeout(r, WATCH_RETRY_MS));
        if (stopped) return;
        session = await open().catch(() => undefined);
        if (session) onGap?.();
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        await current?.messages.close().catch(() => undefined);
        await loop.catch(() => undefined);
        if (current) await jsm.consumers.delete(this.stream, current.name).catch(() => undefined);
      },
    };
  }
}
