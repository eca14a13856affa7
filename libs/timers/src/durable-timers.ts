import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import { Empty, headers, type QueuedIterator } from '@nats-io/nats-core';
import { Buckets, envelope, type Envelope } from '@dirigent/contracts';
import {
  currentTrace,
  formatTraceparent,
  jetStreamReplicas,
  parseTraceparent,
  removeStoredMessage,
  tracingEnabled,
  withLinkedTrace,
  type Messaging,
} from '@dirigent/messaging';

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
  /** The trace that scheduled it (spans exported then): the firing's trace links to it. */
  traceparent?: string;
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
 * Removing leaves nothing behind (NATS 2.9 keeps a delete marker forever): a delete marker
 * replaces the timer (the bucket keeps one revision a key), then the marker itself is
 * deleted, so the bucket holds only pending timers and a start reads only those, however many
 * turns ever ran. Markers left by a crash in between are swept when a watcher sees them. No
 * purge is used: on NATS 2.9.10 a purge or roll-up of one key moves every watcher of the
 * bucket past timers written meanwhile, which then never fire (nats-io/nats-server#3838).
 *
 * A watcher may still miss a delete marker (it is deleted before it was delivered), so a due
 * timer is read back from the bucket before it fires: only the revision still stored fires.
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
  /** When the alarm is set for (Infinity: none). */
  private alarmAt = Infinity;
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
    const scheduledIn = tracingEnabled() ? currentTrace() : undefined;
    if (scheduledIn) stored.traceparent = formatTraceparent(scheduledIn);
    // A KV put is a publish to the key's subject; the connection's publisher acks it at half
    // the CPU of `kv.put`'s request (the reactor schedules on every turn).
    await this.messaging.client.publisher.publish(
      this.subjectOf(this.storageKey(key)),
      JSON.stringify(stored),
    );
  }

  /** Whether the timer `key` is pending (scheduled and not yet fired or cancelled). */
  async isPending(key: string): Promise<boolean> {
    const e = await this.kv.get(this.storageKey(key));
    return e?.operation === 'PUT';
  }

  /** Cancels the timer `key`; cancelling a timer that does not exist is fine. */
  async cancel(key: string): Promise<void> {
    await this.remove(this.storageKey(key));
  }

  /**
   * Replaces `storageKey` with a delete marker (only while it is at `revision`, when given),
   * then deletes the marker by its sequence: a timer scheduled again in between survives.
   */
  private async remove(storageKey: string, revision?: number): Promise<void> {
    const h = headers();
    h.set('KV-Operation', 'DEL');
    const ack = await this.messaging.client.publisher.publish(this.subjectOf(storageKey), Empty, {
      headers: h,
      expectLastSubjectSequence: revision,
    });
    await this.sweep(ack.seq);
  }

  /** Deletes the delete (or older versions' purge) marker at `seq`; a missing one is fine. */
  private async sweep(seq: number): Promise<void> {
    await removeStoredMessage(this.messaging.client.jsm, `KV_${this.bucket}`, seq);
  }

  /** Whether `storageKey` still holds the timer at `revision` in the bucket. */
  private async stored(storageKey: string, revision: number): Promise<boolean> {
    const e = await this.kv.get(storageKey);
    return e?.operation === 'PUT' && e.revision === revision;
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
          const t: Pending = { ...e.json<StoredTimer>(), revision: e.revision };
          this.pending.set(e.key, t);
          // One look at the new timer, not at all of them: a start reads n timers in O(n).
          this.arm(t);
        } else {
          // The alarm may now be early: it finds nothing due and looks at all of them.
          this.pending.delete(e.key);
          // Left by an older version or a crash between marker and sweep.
          if (e.revision <= startedAt) void this.sweep(e.revision).catch(() => undefined);
        }
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

  /**
   * Sets the alarm for the nearest timer this instance fires: for `added` alone when given
   * (it only ever moves the alarm earlier), else for all of them.
   */
  private arm(added?: StoredTimer): void {
    if (this.stopped) return;
    let next = Infinity;
    if (added) {
      if (!this.mine(added) || added.dueAt >= this.alarmAt) return;
      next = added.dueAt;
    } else {
      for (const t of this.pending.values()) if (this.mine(t)) next = Math.min(next, t.dueAt);
    }
    if (this.alarm) clearTimeout(this.alarm);
    this.alarm = undefined;
    this.alarmAt = next;
    if (next === Infinity) return;
    const delay = Math.min(Math.max(next - this.now(), 0), MAX_DELAY);
    this.alarm = setTimeout(() => {
      this.alarm = undefined;
      this.alarmAt = Infinity;
      void this.fireDue();
    }, delay);
  }

  private async fireDue(): Promise<void> {
    if (this.firing || this.stopped) return;
    this.firing = true;
    try {
      const now = this.now();
      for (const [storageKey, t] of [...this.pending]) {
        if (t.dueAt > now || !this.mine(t)) continue;
        try {
          // Cancelled or rescheduled, and the delete marker was missed: nothing to fire.
          if (!(await this.stored(storageKey, t.revision))) {
            if (this.pending.get(storageKey)?.revision === t.revision)
              this.pending.delete(storageKey);
            continue;
          }
          // A trace of its own, linked to the one that scheduled it: what the firing starts
          // (a speculative turn, a follow-up, a delivery timeout) happens minutes later.
          await withLinkedTrace(
            `timer ${t.subject}`,
            { 'dirigent.service': this.messaging.source, 'dirigent.timer.key': t.key },
            parseTraceparent(t.traceparent),
            () => this.messaging.publish(t.subject, t.envelope),
          );
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
