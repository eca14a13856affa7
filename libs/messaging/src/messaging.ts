import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/nats-core';
import { JetStreamApiError, type JsMsg, type PubAck } from '@nats-io/jetstream';
import {
  DomainError,
  ErrorCodes,
  Streams,
  fail,
  ok,
  subject as subjects,
  validatePayload,
  type DeadLetterRecord,
  type Envelope,
  type Reply,
  isEnvelope,
  envelope as makeEnvelope,
} from '@dirigent/contracts';
import type { NatsClient } from './connection';
import { ensureDurable, type DurableSpec } from './provision';
import { consumerLag, deadLetters, handlerLatency, redeliveries } from './metrics';
import { currentTrace, formatTraceparent, nextSpan, parseTraceparent, withTrace } from './trace';

/** Wraps every handler invocation: the persistence layer puts a fresh ORM context here. */
export type HandlerWrapper = <T>(fn: () => Promise<T>) => Promise<T>;

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface PublishOptions {
  /** Optimistic concurrency: the stream sequence of the last message on this subject (0: none). */
  expectLastSubjectSequence?: number;
  headers?: Record<string, string>;
}

/** A failure worth retrying later (the default for unknown errors). */
export class TransientError extends Error {}
/** A failure that no redelivery can fix: terminate and dead-letter at once. */
export class PermanentError extends Error {}

export interface ConsumeOptions<T> extends DurableSpec {
  /** Validates `envelope.data`; an invalid payload is dead-lettered at once. */
  payload?: new () => T;
  handler: (data: T, env: Envelope<T>, msg: JsMsg) => Promise<void>;
  /** Redelivery delays by attempt (last value repeats). */
  backoffMs?: number[];
  /** Messages handled at once by this process (order is kept only at 1). */
  concurrency?: number;
}

export interface ServeOptions<T, R> {
  payload: new () => T;
  handler: (data: T, msg: Msg) => Promise<R>;
  /** Queue group, so that replicas share the load. Defaults to the subject. */
  queue?: string;
}

export interface RunningConsumer {
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

const DEFAULT_BACKOFF = [250, 1000, 5000, 15000];

function headerMap(h: MsgHdrs | undefined): Record<string, string[]> | undefined {
  if (!h) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, v] of h) out[k] = v;
  return out;
}

/**
 * Dirigent's JetStream and request/reply plumbing: publish with `Nats-Msg-Id`, durable
 * pull consumers with explicit ack, backoff and dead letters, and validated request/reply
 * handlers that always answer the reply envelope.
 *
 * @example
 * const m = new Messaging(client, 'turn-coordinator', logger);
 * m.serve(Subjects.turn.check, { payload: CheckTurnRequest, handler: (req) => coordinator.check(req) });
 */
export class Messaging {
  private wrapper: HandlerWrapper = (fn) => fn();
  private readonly consumers = new Set<RunningConsumer>();
  private readonly subs: { unsubscribe(): void }[] = [];

  constructor(
    readonly client: NatsClient,
    readonly source: string,
    private readonly log: Logger,
  ) {}

  useWrapper(wrapper: HandlerWrapper): void {
    this.wrapper = wrapper;
  }

  private traceHeaders(extra?: Record<string, string>): MsgHdrs {
    const h = natsHeaders();
    h.set('traceparent', formatTraceparent(nextSpan(currentTrace())));
    for (const [k, v] of Object.entries(extra ?? {})) h.set(k, v);
    return h;
  }

  /** Builds an envelope from this service and publishes it. */
  publishEvent<T>(
    subject: string,
    type: string,
    data: T,
    opts: Parameters<typeof makeEnvelope>[3] & PublishOptions = {},
  ): Promise<PubAck> {
    return this.publish(subject, makeEnvelope(type, this.source, data, opts), opts);
  }

  /** Publishes an envelope to JetStream; its id becomes `Nats-Msg-Id`. */
  async publish<T>(subject: string, env: Envelope<T>, opts: PublishOptions = {}): Promise<PubAck> {
    const expect =
      opts.expectLastSubjectSequence !== undefined
        ? { lastSubjectSequence: opts.expectLastSubjectSequence }
        : undefined;
    return this.client.js.publish(subject, JSON.stringify(env), {
      msgID: env.id,
      headers: this.traceHeaders(opts.headers),
      ...(expect ? { expect } : {}),
    });
  }

  /** Sends a request and returns the reply envelope (`UNAVAILABLE`/`TIMEOUT` when nobody answers). */
  async request<R>(subject: string, data: unknown, timeoutMs = 5000): Promise<Reply<R>> {
    try {
      // Outside any trace there is nothing to propagate; the server starts its own, and the
      // request stays header-free (header parsing is most of a small request's cost).
      const msg = await this.client.nc.request(subject, JSON.stringify(data), {
        timeout: timeoutMs,
        ...(currentTrace() ? { headers: this.traceHeaders() } : {}),
      });
      return msg.json<Reply<R>>();
    } catch (e) {
      const text = String((e as Error).message ?? e);
      if (/no responders/i.test(text))
        return fail(ErrorCodes.UNAVAILABLE, `no service answers ${subject}`);
      if (/timeout/i.test(text))
        return fail(ErrorCodes.TIMEOUT, `${subject} did not answer in ${timeoutMs} ms`);
      throw e;
    }
  }

  /**
   * Answers requests on `subject`. Input that is not JSON or fails validation gets
   * `BAD_REQUEST` with the field errors; a thrown DomainError becomes its code; anything
   * else becomes `INTERNAL` and is logged. The subscription never dies of a bad message.
   */
  serve<T extends object, R>(subject: string, opts: ServeOptions<T, R>): void {
    const sub = this.client.nc.subscribe(subject, {
      queue: opts.queue ?? subject,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err: String(err), subject }, 'subscription error');
          return;
        }
        void this.answer(subject, msg, opts);
      },
    });
    this.subs.push(sub);
  }

  private async answer<T extends object, R>(subject: string, msg: Msg, opts: ServeOptions<T, R>) {
    const started = process.hrtime.bigint();
    const trace = nextSpan(parseTraceparent(msg.headers?.get('traceparent')));
    let reply: Reply<unknown>;
    let outcome = 'ok';
    try {
      let body: unknown;
      try {
        body = msg.data.length ? msg.json() : {};
      } catch {
        throw new DomainError(ErrorCodes.BAD_REQUEST, 'body is not valid JSON');
      }
      const checked = validatePayload(opts.payload, body);
      if (!checked.ok) {
        const fields = checked.errors.map((e) => e.field || '(body)').join(', ');
        throw new DomainError(ErrorCodes.BAD_REQUEST, `invalid request: ${fields}`, checked.errors);
      }
      const data = await withTrace(trace, () =>
        this.wrapper(() => opts.handler(checked.value, msg)),
      );
      reply = ok(data ?? {});
    } catch (e) {
      if (e instanceof DomainError) {
        outcome = e.code;
        reply = fail(e.code, e.message, e.details);
      } else {
        outcome = 'error';
        this.log.error(
          { subject, err: (e as Error).message, trace: trace.traceId },
          'handler failed',
        );
        reply = fail(ErrorCodes.INTERNAL, 'internal error; see the service log');
      }
    }
    handlerLatency.observe(
      { kind: 'rpc', name: subject, outcome },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
    if (msg.reply) msg.respond(JSON.stringify(reply));
  }

  /**
   * Runs a durable pull consumer: explicit ack after the handler succeeds, `nak` with
   * backoff when it throws, `term` plus a dead-letter record after `maxDeliver`
   * deliveries (or at once for a PermanentError or an invalid payload).
   */
  async consume<T extends object>(opts: ConsumeOptions<T>): Promise<RunningConsumer> {
    await ensureDurable(this.client.jsm, opts);
    const consumer = await this.client.js.consumers.get(opts.stream, opts.durable);
    const messages = await consumer.consume({
      max_messages: Math.max(opts.concurrency ?? 1, 1) * 2,
    });
    const concurrency = Math.max(opts.concurrency ?? 1, 1);
    const inflight = new Set<Promise<void>>();
    const loop = (async () => {
      for await (const m of messages) {
        const p = this.handleOne(m, opts).finally(() => inflight.delete(p));
        inflight.add(p);
        if (inflight.size >= concurrency) await Promise.race(inflight);
      }
      await Promise.all(inflight);
    })();
    const running: RunningConsumer = {
      done: loop,
      stop: async () => {
        await messages.close();
        await loop.catch(() => undefined);
        this.consumers.delete(running);
      },
    };
    this.consumers.add(running);
    return running;
  }

  private async handleOne<T extends object>(m: JsMsg, opts: ConsumeOptions<T>): Promise<void> {
    const labels = { stream: opts.stream, durable: opts.durable };
    const started = process.hrtime.bigint();
    consumerLag.set(labels, m.info.pending);
    if (m.info.deliveryCount > 1) redeliveries.inc(labels);
    const trace = nextSpan(parseTraceparent(m.headers?.get('traceparent')));
    let outcome = 'ok';
    try {
      let env: Envelope<T>;
      try {
        const parsed = m.json<unknown>();
        if (!isEnvelope(parsed)) throw new Error('not an envelope');
        env = parsed as Envelope<T>;
      } catch (e) {
        throw new PermanentError(`unreadable message: ${(e as Error).message}`);
      }
      if (opts.payload) {
        const checked = validatePayload(opts.payload, env.data);
        if (!checked.ok) {
          throw new PermanentError(
            `invalid payload: ${checked.errors.map((f) => `${f.field} ${f.messages.join('; ')}`).join(', ')}`,
          );
        }
        env = { ...env, data: checked.value };
      }
      await withTrace(trace, () => this.wrapper(() => opts.handler(env.data, env, m)));
      m.ack();
    } catch (e) {
      const err = e as Error;
      const permanent =
        e instanceof PermanentError ||
        (e instanceof DomainError && e.code === ErrorCodes.BAD_REQUEST);
      if (permanent || m.info.deliveryCount >= opts.maxDeliver) {
        outcome = 'dead-letter';
        await this.deadLetter(m, opts, err.message);
      } else {
        outcome = 'retry';
        const backoff = opts.backoffMs ?? DEFAULT_BACKOFF;
        const delay = backoff[Math.min(m.info.deliveryCount - 1, backoff.length - 1)];
        this.log.warn(
          {
            subject: m.subject,
            seq: m.seq,
            attempt: m.info.deliveryCount,
            delay,
            err: err.message,
          },
          'handler failed; will retry',
        );
        m.nak(delay);
      }
    }
    handlerLatency.observe(
      { kind: 'consumer', name: opts.durable, outcome },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
  }

  private async deadLetter(m: JsMsg, spec: DurableSpec, error: string): Promise<void> {
    const record: DeadLetterRecord = {
      stream: spec.stream,
      durable: spec.durable,
      subject: m.subject,
      streamSeq: m.seq,
      deliveries: m.info.deliveryCount,
      error,
      payload: m.string(),
      headers: headerMap(m.headers),
    };
    try {
      // Deterministic id: a crash between this publish and the term re-publishes the same record.
      await this.publishEvent(
        subjects.deadLetter(spec.stream, spec.durable),
        'dead-letter',
        record,
        {
          id: `dlq:${spec.stream}:${spec.durable}:${m.seq}`,
        },
      );
      // No reason text: NATS 2.9 does not understand "+TERM <reason>" and would leave it pending.
      m.term();
      deadLetters.inc({ stream: spec.stream, durable: spec.durable });
      this.log.error({ subject: m.subject, seq: m.seq, error }, 'message dead-lettered');
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'dead-letter publish failed; will retry');
      m.nak(1000);
    }
  }

  /** Dead letters recorded for a stream (all of them when `stream` is omitted). */
  async listDeadLetters(limit = 100): Promise<(DeadLetterRecord & { seq: number })[]> {
    const out: (DeadLetterRecord & { seq: number })[] = [];
    let info;
    try {
      info = await this.client.jsm.streams.info(Streams.deadLetter);
    } catch (e) {
      if (e instanceof JetStreamApiError) return out;
      throw e;
    }
    const last = info.state.last_seq;
    for (let seq = last; seq >= info.state.first_seq && out.length < limit && seq > 0; seq--) {
      try {
        const sm = await this.client.jsm.streams.getMessage(Streams.deadLetter, { seq });
        if (!sm) continue;
        const env = sm.json<Envelope<DeadLetterRecord>>();
        out.push({ ...env.data, seq });
      } catch {
        // deleted message: skip
      }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const s of this.subs.splice(0)) s.unsubscribe();
    await Promise.all([...this.consumers].map((c) => c.stop()));
  }
}
