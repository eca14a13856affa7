import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { isEnvelope, TRACEPARENT_HEADER, type Envelope } from '@dirigent/contracts';
import type { NatsClient } from './connection';
import { publishDeadLetter } from './dead-letters';
import { isPermanent, PermanentError, type Logger } from './errors';
import { consumerLag, deadLetters, redeliveries } from './metrics';
import { ensureDurable, type DurableSpec } from './provision';
import { nextSpan, parseTraceparent, withTrace } from './trace';
import { SpanKind, startSpan, tracingEnabled } from './tracing';

/** How a durable event handler is consumed: the extras of `@EventPattern(subject, extras)`. */
export interface DurableEventOptions extends DurableSpec {
  /** Redelivery delays by attempt (last value repeats). */
  backoffMs?: number[];
  /** Messages handled at once by this process (order is kept only at 1). */
  concurrency?: number;
  /**
   * Deliveries started in one turn of the event loop for at most this long (ms), then the
   * loop is let go (`setImmediate`) before the next is started. Without it, a pull's
   * buffered deliveries, or the slots a batch frees at once, are all started in one turn
   * (their decoding, validation and handler up to its first wait): at a concurrency in the
   * thousands that held memory's loop for hundreds of milliseconds, searches with it.
   */
  sliceMs?: number;
  /**
   * Tells the server every this many ms that a delivery is still in hand (its handler is
   * busy, or it waits for a free slot), so a short ack wait (a quick takeover after a crash)
   * does not redeliver a message that is merely slow or queued. With it, every delivery the
   * server hands out (at most `maxAckPending`) is held here.
   */
  workingEveryMs?: number;
  /**
   * Before pulling, wait (at most one ack wait) until messages a previous holder of the
   * durable left unacknowledged are due again, so they come before newer ones: for short
   * ack waits and handlers that keep a per-key order (the coordinator's channel inputs).
   */
  awaitAbandoned?: boolean;
  /**
   * How long `stop()` waits for handlers still running (default 10 s). A handler that is
   * stuck (e.g. on a request nobody answers) is then left: its delivery is not acknowledged
   * and comes back, to the next holder of the durable, after the ack wait.
   */
  stopGraceMs?: number;
}

export interface RunningConsumer {
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

/** Handles one delivered message whose body is a valid envelope. */
export type EnvelopeHandler = (env: Envelope, m: JsMsg) => Promise<void>;

/**
 * Tells, before anything else is done with a delivery, that it is not this consumer's to
 * handle: it is acknowledged without decoding, metrics or a handler slot (a partitioned
 * consumer reading the whole stream skips the other partitions' messages).
 */
export type SkipDelivery = (m: JsMsg) => boolean;

const DEFAULT_BACKOFF = [250, 1000, 5000, 15000];
const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * Runs a durable pull consumer: explicit ack after the handler's promise resolves, `nak`
 * with backoff when it throws, `term` plus a dead-letter record after `maxDeliver`
 * deliveries, or at once for a permanent error (unreadable body, invalid payload).
 * Nothing a handler throws escapes.
 */
export async function runDurableConsumer(
  client: NatsClient,
  source: string,
  opts: DurableEventOptions,
  handle: EnvelopeHandler,
  log: Logger,
  skip?: SkipDelivery,
): Promise<RunningConsumer> {
  await ensureDurable(client.jsm, opts);
  if (opts.awaitAbandoned) await abandonedDue(client, opts);
  const consumer = await client.js.consumers.get(opts.stream, opts.durable);
  const concurrency = Math.max(opts.concurrency ?? 1, 1);
  const messages = await consumer.consume({
    max_messages: concurrency * 2,
    expires: DURABLE_PULL_EXPIRES_MS,
  });
  recreateWhenLost(client, opts, messages, log, () => stopping);
  const inflight = new Set<Promise<void>>();
  // With in-progress signals, every delivery in hand is taken from the client at once (the
  // server hands out at most max_ack_pending) and waits here for a slot, where one timer tells
  // the server it is held: a delivery left unread behind busy slots would be redelivered every
  // ack wait and handled twice. Without them, a full set of slots stops the reading.
  const held = new Set<JsMsg>();
  let stopping = false;
  const waiting: JsMsg[] = [];
  const beat = opts.workingEveryMs
    ? setInterval(() => {
        try {
          held.forEach((m) => m.working());
        } catch {
          // Connection closing: the deliveries come back after their ack wait.
        }
      }, opts.workingEveryMs)
    : undefined;
  const start = (m: JsMsg) => {
    held.add(m);
    const p = handleOne(client, source, opts, handle, log, m)
      .catch((e: Error) =>
        // The ack or nak could not be sent (the connection is closing): redelivered later.
        log.warn({ seq: m.seq, err: e.message }, 'delivery not settled; it comes back'),
      )
      .finally(() => {
        inflight.delete(p);
        held.delete(m);
        // Stopping: what waits goes back to the server (below), nothing new starts.
        const next = stopping ? undefined : waiting.shift();
        if (next) start(next);
      });
    inflight.add(p);
  };
  // Skipped deliveries are acknowledged together once the messages at hand are looked at:
  // one socket write for the batch instead of one per acknowledgement.
  let skipped: JsMsg[] = [];
  const ackSkipped = () => {
    const batch = skipped;
    skipped = [];
    for (const m of batch) {
      try {
        m.ack();
      } catch {
        // Connection closing: the delivery comes back after the ack wait and is skipped again.
      }
    }
  };
  const slice = opts.sliceMs === undefined ? undefined : turnSlices(opts.sliceMs);
  const loop = (async () => {
    for await (const m of messages) {
      if (skip?.(m)) {
        if (skipped.push(m) === 1) setImmediate(ackSkipped);
        continue;
      }
      const turn = slice?.();
      if (turn) await turn;
      if (beat && inflight.size >= concurrency) {
        held.add(m);
        waiting.push(m);
        continue;
      }
      start(m);
      if (!beat && inflight.size >= concurrency) await Promise.race(inflight);
    }
    // Stopped: what never started goes back to the server now, not after its ack wait.
    for (const m of waiting.splice(0)) {
      held.delete(m);
      try {
        m.nak();
      } catch {
        // Connection closing: redelivered after the ack wait.
      }
    }
    await Promise.all(inflight);
    ackSkipped();
  })().finally(() => clearInterval(beat));
  return {
    done: loop,
    stop: async () => {
      stopping = true;
      // Closing ends once the reading loop has let go, which a stuck handler can keep it from.
      const closing = messages.close().catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        Promise.all([closing, loop]).then(
          () => true,
          () => true,
        ),
        new Promise<false>((r) => {
          timer = setTimeout(() => r(false), opts.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
      if (!settled) {
        clearInterval(beat);
        log.warn(
          { stream: opts.stream, durable: opts.durable, running: inflight.size },
          'handlers still running after the stop grace are left; their deliveries come back after the ack wait',
        );
      }
    },
  };
}

/**
 * A turn of the event loop starts a slice; once `sliceMs` of it is spent, the returned
 * function hands back a promise of the next turn (`setImmediate`) to wait for, and nothing
 * otherwise (so that an unspent slice costs the loop no promise tick).
 */
function turnSlices(sliceMs: number): () => Promise<void> | undefined {
  let slicing = false;
  let sliceAt = 0;
  const endSlice = () => (slicing = false);
  const begin = () => {
    if (slicing) return;
    slicing = true;
    sliceAt = performance.now();
    setImmediate(endSlice);
  };
  return () => {
    if (slicing && performance.now() - sliceAt >= sliceMs) {
      // The slice's end runs before this immediate: the next delivery begins a new one.
      return new Promise<void>((resolve) => setImmediate(resolve)).then(begin);
    }
    begin();
    return undefined;
  };
}

/** Statuses telling that the durable (or its stream) is gone from the server. */
const LOST = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);
const RECREATE_EVERY_MS = 1000;

/**
 * Pull expiry of a durable's consume: its idle heartbeats come every half of it, and two
 * missed make the client look the durable up again, so a durable deleted under a running
 * consumer is found back within seconds of being created again (a pull costs nothing).
 */
export const DURABLE_PULL_EXPIRES_MS = 5000;

/**
 * A durable deleted under a running consumer (its stream deleted and created again: a lost
 * NATS store) is created again as soon as its stream exists: the client keeps looking for
 * it and resumes pulling once it is back, from the start of the new stream.
 */
function recreateWhenLost(
  client: NatsClient,
  opts: DurableEventOptions,
  messages: ConsumerMessages,
  log: Logger,
  stopping: () => boolean,
): void {
  let recreating = false;
  const recreate = async (status: string) => {
    recreating = true;
    try {
      while (!stopping()) {
        try {
          await ensureDurable(client.jsm, opts);
          log.warn(
            { stream: opts.stream, durable: opts.durable, status },
            'durable consumer was gone from the server; created again',
          );
          return;
        } catch {
          // The stream is not back yet.
          await new Promise((r) => setTimeout(r, RECREATE_EVERY_MS));
        }
      }
    } finally {
      recreating = false;
    }
  };
  void (async () => {
    for await (const s of messages.status()) {
      if (LOST.has(s.type) && !recreating && !stopping()) void recreate(s.type);
    }
  })().catch(() => undefined);
}

/**
 * Waits until the messages a previous holder of the durable was handed and never
 * acknowledged (it was killed, or stopped) are due for redelivery, at most one ack wait:
 * pulling at once would hand out newer messages first and break the per-key order that a
 * keyed queue keeps downstream.
 */
async function abandonedDue(client: NatsClient, opts: DurableEventOptions): Promise<void> {
  const info = await client.jsm.consumers.info(opts.stream, opts.durable);
  // An RFC 3339 time on the wire, although the client's type says nanoseconds.
  const raw: unknown = info.delivered.last_active;
  const lastActive =
    typeof raw === 'string' ? Date.parse(raw) : typeof raw === 'number' ? raw / 1e6 : NaN;
  if (info.num_ack_pending === 0 || !Number.isFinite(lastActive)) return;
  const wait = Math.min(lastActive + opts.ackWaitMs - Date.now(), opts.ackWaitMs);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

async function handleOne(
  client: NatsClient,
  source: string,
  opts: DurableEventOptions,
  handle: EnvelopeHandler,
  log: Logger,
  m: JsMsg,
): Promise<void> {
  const labels = { stream: opts.stream, durable: opts.durable };
  consumerLag.set(labels, m.info.pending);
  if (m.info.deliveryCount > 1) redeliveries.inc(labels);
  const parent = parseTraceparent(m.headers?.get(TRACEPARENT_HEADER));
  const span = tracingEnabled()
    ? startSpan(`consume ${opts.durable}`, SpanKind.CONSUMER, parent, {
        'messaging.system': 'nats',
        'messaging.destination.name': m.subject,
        'messaging.consumer.group.name': opts.durable,
        'dirigent.service': source,
      })
    : undefined;
  const trace = span ?? nextSpan(parent);
  try {
    let env: Envelope;
    try {
      const parsed = m.json<unknown>();
      if (!isEnvelope(parsed)) throw new Error('not an envelope');
      env = parsed;
    } catch (e) {
      throw new PermanentError(`unreadable message: ${(e as Error).message}`);
    }
    await withTrace(trace, () => handle(env, m));
    m.ack();
    span?.end();
  } catch (e) {
    span?.end(e);
    const message = (e as Error)?.message ?? String(e);
    if (isPermanent(e) || m.info.deliveryCount >= opts.maxDeliver) {
      await deadLetter(client, source, m, opts, message, log);
      return;
    }
    const backoff = opts.backoffMs ?? DEFAULT_BACKOFF;
    const delay = backoff[Math.min(m.info.deliveryCount - 1, backoff.length - 1)];
    log.warn(
      { subject: m.subject, seq: m.seq, attempt: m.info.deliveryCount, delay, err: message },
      'handler failed; will retry',
    );
    m.nak(delay);
  }
}

async function deadLetter(
  client: NatsClient,
  source: string,
  m: JsMsg,
  opts: DurableEventOptions,
  error: string,
  log: Logger,
): Promise<void> {
  try {
    await publishDeadLetter(client, source, m, opts, error);
    // No reason text: NATS 2.9 does not understand "+TERM <reason>" and would leave it pending.
    m.term();
    deadLetters.inc({ stream: opts.stream, durable: opts.durable });
    log.error({ subject: m.subject, seq: m.seq, error }, 'message dead-lettered');
  } catch (e) {
    log.error({ err: (e as Error).message }, 'dead-letter publish failed; will retry');
    m.nak(1000);
  }
}
