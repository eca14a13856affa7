import {
  createInbox,
  errors,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';
import { JetStreamApiError, JetStreamError, type PubAck } from '@nats-io/jetstream';

export interface AckedPublishOptions {
  /** `Nats-Msg-Id`: JetStream stores a second publish with this id within its window once. */
  msgID?: string;
  /** `Nats-Expected-Last-Subject-Sequence`: refused (err_code 10071) unless it matches. */
  expectLastSubjectSequence?: number;
  /** Added to; the two headers above are set on it. */
  headers?: MsgHdrs;
}

interface Waiting {
  resolve(ack: PubAck): void;
  reject(e: Error): void;
  deadline: number;
  subject: string;
}

/**
 * JetStream publishes that wait for the stream's ack, as `JetStreamClient.publish` does,
 * over one reply subscription and one timer for all of them. The client's publish is a
 * request: per publish it registers a request with its own timer, and on the ack builds
 * an `Error` (stack captured) that it never throws. That was half the CPU of a publish
 * (docs/performance.md, "The JetStream publisher"). Here an ack is matched by its reply
 * subject's last token, and because every publish waits the same time, the oldest one
 * waiting always expires first: the timer only ever looks at the head of the queue.
 *
 * Results as the client's: the {@link PubAck} (`duplicate` false when the server leaves
 * it out); the server's error as a {@link JetStreamApiError} (`code` = `err_code`); no
 * stream for the subject as a {@link JetStreamError} caused by a `NoRespondersError`; no
 * ack in time as a `TimeoutError`; the connection closing as a `ClosedConnectionError`.
 *
 * @example
 * const publisher = new JetStreamPublisher(nc);
 * const ack = await publisher.publish(subject, JSON.stringify(env), { msgID: env.id });
 */
export class JetStreamPublisher {
  private readonly prefix: string;
  private readonly waiting = new Map<string, Waiting>();
  private next = 0;
  private sub?: Subscription;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs = 5_000,
    /** The connection's inbox prefix (a service user's own, see `NatsClient`). */
    inboxPrefix?: string,
  ) {
    this.prefix = `${createInbox(inboxPrefix)}.`;
    void nc.closed().then(() => this.failAll(new errors.ClosedConnectionError()));
  }

  /** How many publishes wait for their ack. */
  get pending(): number {
    return this.waiting.size;
  }

  publish(
    subject: string,
    data: string | Uint8Array,
    opts: AckedPublishOptions = {},
  ): Promise<PubAck> {
    const headers = opts.headers ?? natsHeaders();
    if (opts.msgID) headers.set('Nats-Msg-Id', opts.msgID);
    if (opts.expectLastSubjectSequence !== undefined)
      headers.set('Nats-Expected-Last-Subject-Sequence', String(opts.expectLastSubjectSequence));
    return new Promise<PubAck>((resolve, reject) => {
      const token = (this.next++).toString(36);
      try {
        this.sub ??= this.nc.subscribe(`${this.prefix}*`, { callback: (_e, m) => this.settle(m) });
        this.nc.publish(subject, data, { reply: this.prefix + token, headers });
      } catch (e) {
        return reject(e as Error);
      }
      this.waiting.set(token, {
        resolve,
        reject,
        deadline: Date.now() + this.timeoutMs,
        subject,
      });
      if (!this.timer) this.arm(this.timeoutMs);
    });
  }

  private settle(m: Msg): void {
    const token = m.subject.slice(this.prefix.length);
    const w = this.waiting.get(token);
    if (!w) return; // expired already
    this.waiting.delete(token);
    if (!this.waiting.size) this.disarm();
    const code = m.headers?.code ?? 0;
    if (!m.data.length && code >= 300) {
      // 503: no stream takes the subject (js.publish words it so too)
      return w.reject(
        code === 503
          ? new JetStreamError('jetstream is not enabled', {
              cause: new errors.NoRespondersError(w.subject),
            })
          : new JetStreamError(`publish answered with status ${code}`),
      );
    }
    let ack: PubAck & { error?: ConstructorParameters<typeof JetStreamApiError>[0] };
    try {
      ack = m.json();
    } catch {
      return w.reject(new JetStreamError('invalid ack response'));
    }
    if (ack.error) return w.reject(new JetStreamApiError(ack.error));
    if (!ack.stream) return w.reject(new JetStreamError('invalid ack response'));
    ack.duplicate = ack.duplicate ?? false;
    w.resolve(ack);
  }

  /** Rejects what has waited its time; waits for the next oldest (they expire in order). */
  private readonly expire = () => {
    this.timer = undefined;
    const now = Date.now();
    for (const [token, w] of this.waiting) {
      if (w.deadline > now) return this.arm(w.deadline - now);
      this.waiting.delete(token);
      w.reject(new errors.TimeoutError());
    }
  };

  private arm(ms: number): void {
    // The connection's socket keeps the process alive while an ack can still come.
    this.timer = setTimeout(this.expire, ms).unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private failAll(e: Error): void {
    this.disarm();
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) w.reject(e);
  }
}
