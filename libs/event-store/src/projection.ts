import type { EntityManager } from '@mikro-orm/postgresql';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { Gauge } from 'prom-client';
import { Streams, type Envelope } from '@dirigent/contracts';
import { metricsRegistry, type Messaging } from '@dirigent/messaging';
import { COMMIT_TYPE, type Commit, type DomainEvent } from './event-store';
import {
  applyBatch,
  checkpointFor,
  type Projection,
  type ProjectionCommit,
} from './projection-checkpoint';

export interface ProjectionLogger {
  warn(obj: object, msg?: string): void;
  /** A failed batch (the read model stops moving until one succeeds); `warn` without it. */
  error?(obj: object, msg?: string): void;
}

export interface ProjectionRunnerOptions<E extends DomainEvent = DomainEvent> {
  stream?: string;
  /** Commits applied per transaction at most. */
  batchSize?: number;
  /**
   * At the tail, the least time between the starts of two batches (default 50 ms): commits
   * arriving one by one are applied together, a few transactions a second, at the cost of
   * that much read-model latency (none for a reader waiting in `reached`).
   */
  lingerMs?: number;
  log?: ProjectionLogger;
  /** A batch still running after this long is logged as an error (default 5 s). */
  slowBatchMs?: number;
  /** Called after each committed batch with the commits it applied (live updates). */
  onApplied?: (commits: readonly ProjectionCommit<E>[]) => void;
}
const projectionPending = new Gauge({
  name: 'dirigent_projection_pending_commits',
  help: 'Event store commits a projection has still to read, as of its last delivery',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

/** Statuses after which the ephemeral consumer will deliver nothing more. */
const CONSUMER_LOST = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);
const RETRY_MS = 500;
const PULL_EXPIRES_MS = 5000;

/**
 * Runs a projection as a catch-up subscription whose position is the Postgres checkpoint:
 * an ephemeral consumer (no acks) reads the event store from checkpoint + 1, commits are
 * applied in batches (as many as are waiting, up to `batchSize`, per transaction), then new
 * commits are applied as they are stored. A crashed process leaves nothing in flight: the
 * next one starts from the checkpoint at once. A lost consumer (NATS restart, missed
 * delivery) is created again from the checkpoint.
 */
export class ProjectionRunner<E extends DomainEvent = DomainEvent> {
  private readonly stream: string;
  private readonly batchSize: number;
  private readonly lingerMs: number;
  /** Applies the commits waiting for the linger now (a reader waits for a position). */
  private flushNow?: () => void;
  private stopped = false;
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private retryTimer?: { timer: NodeJS.Timeout; resolve: () => void };
  private readonly waiters = new Set<{ seq: number; resolve: (ok: boolean) => void }>();
  /** The checkpoint as last seen by this runner. */
  position = 0;
  /** The creation time of the stream the current consumer reads. */
  private streamCreated?: string;

  constructor(
    private readonly messaging: Messaging,
    private readonly em: EntityManager,
    readonly projection: Projection<E>,
    private readonly opts: ProjectionRunnerOptions<E> = {},
  ) {
    this.stream = opts.stream ?? Streams.eventStore;
    this.batchSize = opts.batchSize ?? 1000;
    this.lingerMs = opts.lingerMs ?? 50;
  }

  /** Resolves once the first consumer is reading. */
  async start(): Promise<void> {
    const first = await this.open();
    this.loop = this.run(first);
  }

  get done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retryTimer?.resolve();
    this.messages?.stop();
    await this.loop?.catch(() => undefined);
    for (const w of this.waiters) w.resolve(false);
    this.waiters.clear();
  }

  /** Resolves true once the checkpoint is at or past `seq`, false after `timeoutMs`. */
  reached(seq: number, timeoutMs = 10_000): Promise<boolean> {
    if (this.position >= seq) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = {
        seq,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => w.resolve(false), timeoutMs);
      this.waiters.add(w);
      this.flushNow?.();
    });
  }

  private advance(seq: number): void {
    if (seq <= this.position) return;
    this.position = seq;
    for (const w of [...this.waiters]) if (w.seq <= seq) w.resolve(true);
  }

  private async run(first: { messages: ConsumerMessages; name: string }): Promise<void> {
    let session: { messages: ConsumerMessages; name: string } | undefined = first;
    while (!this.stopped) {
      try {
        session ??= await this.open();
        await this.read(session.messages);
      } catch (e) {
        this.logError(
          { projection: this.projection.name, err: (e as Error).message },
          'projection batch or consumer failed; resuming from the checkpoint',
        );
      } finally {
        if (session) await this.close(session.name);
        session = undefined;
      }
      if (!this.stopped) await this.pause(RETRY_MS);
    }
  }

  private async open(): Promise<{ messages: ConsumerMessages; name: string }> {
    const { jsm, js } = this.messaging.client;
    const info = await jsm.streams.info(this.stream);
    const generation = { created: info.created, lastSeq: info.state.last_seq };
    const {
      position: from,
      reset,
      was,
    } = await checkpointFor(this.em, this.projection, generation);
    if (reset) {
      this.logError(
        {
          projection: this.projection.name,
          stream: this.stream,
          checkpoint: was?.lastSeq,
          checkpointStreamCreated: was?.created,
          streamCreated: generation.created,
          streamLastSeq: generation.lastSeq,
        },
        'event store stream was recreated; rebuilding the read model from the new stream',
      );
      this.position = 0;
    }
    this.streamCreated = generation.created;
    this.advance(from);
    const consumerInfo = await jsm.consumers.add(this.stream, {
      filter_subject: this.projection.filterSubject,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from + 1,
      ack_policy: AckPolicy.None,
      mem_storage: true,
      // A killed process's consumer is removed by the server (longer than a pull's expiry).
      inactive_threshold: nanos(60_000),
    });
    const consumer = await js.consumers.get(this.stream, consumerInfo.name);
    const messages = await consumer.consume({
      max_messages: this.batchSize * 2,
      abort_on_missing_resource: true,
      // Short pulls (heartbeats every 2.5 s): a consumer that stopped delivering is noticed
      // within seconds rather than half a minute, while the read model waits on it.
      expires: PULL_EXPIRES_MS,
    });
    this.messages = messages;
    void (async () => {
      for await (const s of messages.status()) {
        if (CONSUMER_LOST.has(s.type) || (s.type === 'heartbeats_missed' && s.count >= 2)) {
          this.opts.log?.warn(
            { projection: this.projection.name, status: s.type },
            'projection consumer lost; resuming from the checkpoint',
          );
          messages.stop();
          return;
        }
      }
    })().catch(() => undefined);
    return { messages, name: consumerInfo.name };
  }

  private async close(name: string): Promise<void> {
    this.messages?.stop();
    this.messages = undefined;
    await this.messaging.client.jsm.consumers.delete(this.stream, name).catch(() => undefined);
  }

  /**
   * Collects commits while more are pending and applies them together. At the tail a batch
   * starts at most every `lingerMs` (what arrives meanwhile joins it), so a steady trickle of
   * commits costs a few transactions a second instead of one each; a reader waiting for a
   * position ({@link reached}) has the batch at hand applied at once. Returns when the
   * consumer ends or skipped a delivery.
   */
  private async read(messages: ConsumerMessages): Promise<void> {
    let queued: ProjectionCommit<E>[] = [];
    let delivered = 0;
    const pendingLabels = { projection: this.projection.name };
    /** The last delivery read, and the last one in a batch already started. */
    let through = 0;
    let started = 0;
    let lastStart = 0;
    let timer: NodeJS.Timeout | undefined;
    // One batch is applied while the next one is read (batches still commit in order); a
    // failed batch ends the read, and the next consumer starts from the checkpoint.
    let applying: Promise<void> = Promise.resolve();
    let running = false;
    let failure: unknown;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      this.flushNow = undefined;
      // A batch under way: what gathers meanwhile goes when it ends.
      if (running || failure || through <= started) return;
      const batch = queued;
      queued = [];
      started = through;
      lastStart = Date.now();
      running = true;
      applying = this.apply(batch, started).then(
        () => {
          running = false;
          schedule();
        },
        (e: unknown) => {
          running = false;
          failure ??= e;
          messages.stop();
        },
      );
    };
    const schedule = () => {
      if (running || timer || through <= started) return;
      const wait = lastStart + this.lingerMs - Date.now();
      if (wait <= 0 || this.waiters.size > 0) return flush();
      timer = setTimeout(flush, wait);
      this.flushNow = flush;
    };
    try {
      for await (const m of messages) {
        if (m.info.deliverySequence !== ++delivered) break;
        // Not every delivery: labels are hashed per call, and catching up reads thousands.
        if (m.info.pending === 0 || delivered % 100 === 1) {
          projectionPending.set(pendingLabels, m.info.pending);
        }
        const commit = this.toCommit(m);
        if (commit) queued.push(commit);
        through = m.seq;
        if (m.info.pending > 0 && queued.length < this.batchSize) continue;
        if (queued.length < this.batchSize) {
          schedule();
          continue;
        }
        // A full batch (catching up): started as soon as the one before it is applied.
        await applying;
        if (failure) break;
        flush();
      }
    } finally {
      // What was not started is read again by the next consumer, from the checkpoint.
      clearTimeout(timer);
      this.flushNow = undefined;
    }
    await applying;
    if (failure) throw failure;
  }

  private async apply(batch: ProjectionCommit<E>[], through: number): Promise<void> {
    if (batch.length) {
      // A batch normally takes milliseconds; one still running after this long (a lock or a
      // connection it waits for) holds the read model still: say so while it lasts.
      const slowMs = this.opts.slowBatchMs ?? 5000;
      const slow = setTimeout(
        () =>
          this.logError(
            { projection: this.projection.name, commits: batch.length, from: batch[0].seq },
            `projection batch still running after ${slowMs} ms`,
          ),
        slowMs,
      );
      try {
        const { checkpoint, applied } = await applyBatch(
          this.em,
          this.projection,
          batch,
          this.streamCreated,
        );
        this.advance(checkpoint);
        if (applied.length) this.opts.onApplied?.(applied);
      } finally {
        clearTimeout(slow);
      }
    }
    this.advance(through);
  }

  private logError(obj: object, msg: string): void {
    const log = this.opts.log;
    if (log?.error) log.error(obj, msg);
    else log?.warn(obj, msg);
  }

  private toCommit(m: JsMsg): ProjectionCommit<E> | undefined {
    try {
      const envelope = m.json<Envelope<Commit<E>>>();
      if (envelope?.type === COMMIT_TYPE) return { subject: m.subject, seq: m.seq, envelope };
    } catch {
      // Not a commit: nothing for a projection.
    }
    this.opts.log?.warn({ subject: m.subject, seq: m.seq }, 'not an event-store commit; skipped');
    return undefined;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(), ms);
      this.retryTimer = {
        timer,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }
}

/** Starts a {@link ProjectionRunner}; `stop()` ends it. */
export async function runProjection<E extends DomainEvent>(
  messaging: Messaging,
  em: EntityManager,
  projection: Projection<E>,
  opts: ProjectionRunnerOptions<E> = {},
): Promise<ProjectionRunner<E>> {
  const runner = new ProjectionRunner(messaging, em, projection, opts);
  await runner.start();
  return runner;
}
