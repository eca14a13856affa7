import { JsHeaders } from '@nats-io/jetstream';
import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import { Empty, headers, type QueuedIterator } from '@nats-io/nats-core';
import { Buckets, envelope, type Envelope } from '@dirigent/contracts';
import { jetStreamReplicas, type Messaging } from '@dirigent/messaging';

/** What a timer publishes when it fires: an envelope on a JetStream subject. */
export interface TimerCommand<T = unknown> {
  subject: string;
  type: string;
  data: T;
  /** What scheduled the timer (the envelope's `causationId`), e.g. the reactor job that armed it. */
  causationId?: string;
}

interface StoredTimer {
  key: string;
  dueAt: number;
  subject: string;
  envelope: Envelope;
}

interface Pending extends StoredTimer {
  revision: number;
}

const MAX_DELAY = 2 ** 31 - 1;

const encodeKey = (key: string) => Buffer.from(key, 'utf8').toString('base64url');

/**
 * Durable timers on a JetStream KV bucket (NATS 2.9 has no message scheduling).
 *
 * The bucket is the source of truth: `schedule` writes the timer, `cancel` removes it, and
 * every running instance of the owning service watches the bucket and keeps only an
 * in-memory alarm for the nearest one. When it fires, the stored envelope is published
 * (its id is the `Nats-Msg-Id`, so two instances or a crash-and-retry publish it once)
 * and the key is removed if it still holds the same revision. A timer set by a process
 * that then dies is fired by the next one to start.
 *
 * Removing leaves nothing behind (NATS 2.9 keeps a delete marker forever): the key is
 * purged, then the purge marker itself, so the bucket holds only pending timers and a start
 * reads only those, however many turns ever ran. Markers left by a crash in between are
 * swept when a watcher sees them.
 *
 * @example
 * const timers = await DurableTimers.open(messaging, 'turn-coordinator');
 * await timers.schedule(`delivery:${turnId}`, new Date(Date.now() + 15000), {
 *   subject: subject.timerFired('turn-coordinator', 'delivery-timeout'),
 *   type: 'DeliveryTimeout',
 *   data: { channelId, turnId },
 * });
 */
export class DurableTimers {
  private readonly pending = new Map<string, Pending>();
  private watcher?: QueuedIterator<KvWatchEntry>;
  private alarm?: NodeJS.Timeout;
  private firing = false;
  private stopped = false;

  private constructor(
    private readonly kv: KV,
    private readonly bucket: string,
    private readonly messaging: Messaging,
    private readonly owner: string,
    private readonly now: () => number,
    private readonly fires: (command: { subject: string; data: unknown }) => boolean,
  ) {}

  /**
   * `owner` namespaces the keys, so each service fires only its own timers. `fires` narrows
   * them further, for a service whose replicas divide the work (e.g. by channel partition):
   * a timer it declines stays in the bucket for the instance that takes it; call
   * {@link rearm} when the answer may have changed.
   */
  static async open(
    messaging: Messaging,
    owner: string,
    opts: {
      bucket?: string;
      now?: () => number;
      fires?: (command: { subject: string; data: unknown }) => boolean;
    } = {},
  ): Promise<DurableTimers> {
    if (!/^[A-Za-z0-9_-]+$/.test(owner)) throw new Error(`invalid timer owner "${owner}"`);
    const bucket = opts.bucket ?? Buckets.timers;
    const kv = await new Kvm(messaging.client.js).create(bucket, {
      history: 1,
      replicas: jetStreamReplicas(),
    });
    return new DurableTimers(
      kv,
      bucket,
      messaging,
      owner,
      opts.now ?? Date.now,
      opts.fires ?? (() => true),
    );
  }

  private storageKey(key: string): string {
    return `${this.owner}.${encodeKey(key)}`;
  }

  /** Schedules (or replaces) the timer `key`. */
  async schedule<T>(key: string, dueAt: Date, command: TimerCommand<T>): Promise<void> {
    const stored: StoredTimer = {
      key,
      dueAt: dueAt.getTime(),
      subject: command.subject,
      envelope: envelope(command.type, this.messaging.source, command.data, {
        causationId: command.causationId,
      }),
    };
    await this.kv.put(this.storageKey(key), JSON.stringify(stored));
  }

  /** Cancels the timer `key`; cancelling a timer that does not exist is fine. */
  async cancel(key: string): Promise<void> {
    await this.remove(this.storageKey(key));
  }

  /**
   * Purges every revision of `storageKey` (only while it is at `revision`, when given), then
   * the purge marker: the stream purge stops at the marker's sequence, so a timer scheduled
   * again in between survives.
   */
  private async remove(storageKey: string, revision?: number): Promise<void> {
    const h = headers();
    h.set('KV-Operation', 'PURGE');
    h.set(JsHeaders.RollupHdr, JsHeaders.RollupValueSubject);
    const ack = await this.messaging.client.js.publish(this.subjectOf(storageKey), Empty, {
      headers: h,
      ...(revision !== undefined ? { expect: { lastSubjectSequence: revision } } : {}),
    });
    await this.sweep(storageKey, ack.seq);
  }

  /** Removes the delete or purge marker at `seq` (and anything older) of `storageKey`. */
  private async sweep(storageKey: string, seq: number): Promise<void> {
    await this.messaging.client.jsm.streams.purge(`KV_${this.bucket}`, {
      filter: this.subjectOf(storageKey),
      seq: seq + 1,
    });
  }

  private subjectOf(storageKey: string): string {
    return `$KV.${this.bucket}.${storageKey}`;
  }

  /** Timers waiting in this process's view of the bucket. */
  get size(): number {
    return this.pending.size;
  }

  /** Starts watching the bucket and firing due timers. */
  async start(): Promise<void> {
    const { state } = await this.messaging.client.jsm.streams.info(`KV_${this.bucket}`);
    const startedAt = state.last_seq;
    this.watcher = await this.kv.watch({ key: `${this.owner}.>` });
    void (async () => {
      for await (const e of this.watcher!) {
        if (e.operation === 'PUT') {
          const t = e.json<StoredTimer>();
          this.pending.set(e.key, { ...t, revision: e.revision });
        } else {
          this.pending.delete(e.key);
          // Left by an older version or a crash between purge and sweep.
          if (e.revision <= startedAt) void this.sweep(e.key, e.revision).catch(() => undefined);
        }
        this.arm();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.alarm) clearTimeout(this.alarm);
    this.watcher?.stop();
  }

  /** Looks again at which pending timers this instance fires (see `fires` of {@link open}). */
  rearm(): void {
    this.arm();
  }

  private mine(t: StoredTimer): boolean {
    return this.fires({ subject: t.subject, data: t.envelope.data });
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.alarm) clearTimeout(this.alarm);
    let next = Infinity;
    for (const t of this.pending.values()) if (this.mine(t)) next = Math.min(next, t.dueAt);
    if (next === Infinity) return;
    const delay = Math.min(Math.max(next - this.now(), 0), MAX_DELAY);
    this.alarm = setTimeout(() => void this.fireDue(), delay);
  }

  private async fireDue(): Promise<void> {
    if (this.firing || this.stopped) return;
    this.firing = true;
    try {
      const now = this.now();
      for (const [storageKey, t] of [...this.pending]) {
        if (t.dueAt > now || !this.mine(t)) continue;
        try {
          await this.messaging.publish(t.subject, t.envelope);
          // Fails when the timer was rescheduled meanwhile: the new one stays.
          await this.remove(storageKey, t.revision).catch(() => undefined);
          if (this.pending.get(storageKey)?.revision === t.revision)
            this.pending.delete(storageKey);
        } catch {
          // NATS unavailable: keep it, try again on the next alarm.
          t.dueAt = now + 1000;
        }
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  }
}
