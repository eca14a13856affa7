import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/nats-core';
import type { JsMsg, PubAck } from '@nats-io/jetstream';
import {
  ErrorCodes,
  fail,
  ok,
  validatePayload,
  type DeadLetterRecord,
  type Envelope,
  type Reply,
  envelope as makeEnvelope,
  DomainError,
  TRACEPARENT_HEADER,
} from '@dirigent/contracts';
import type { NatsClient } from './connection';
import { listDeadLetters } from './dead-letters';
import {
  runDurableConsumer,
  type DurableEventOptions,
  type RunningConsumer,
} from './durable-consumer';
import { PermanentError, type Logger } from './errors';
import { answerRequest, type Responder } from './responder';
import { currentTrace, formatTraceparent, nextSpan, type TraceContext } from './trace';
import { SpanKind, startSpan, tracingEnabled } from './tracing';

export interface PublishOptions {
  /** Optimistic concurrency: the stream sequence of the last message on this subject (0: none). */
  expectLastSubjectSequence?: number;
  headers?: Record<string, string>;
}

export interface ConsumeOptions<T> extends DurableEventOptions {
  /** Validates `envelope.data`; an invalid payload is dead-lettered at once. */
  payload?: new () => T;
  handler: (data: T, env: Envelope<T>, msg: JsMsg) => Promise<void>;
}

export interface ServeOptions<T, R> {
  payload: new () => T;
  handler: (data: T, msg: Msg) => Promise<R>;
  /** Queue group, so that replicas share the load. Defaults to the subject. */
  queue?: string;
}

/**
 * Dirigent's NATS client side: publish envelopes to JetStream with `Nats-Msg-Id` and trace
 * context, send requests and read the reply envelope, list dead letters. Services declare
 * their handlers with `@EventPattern`/`@MessagePattern` (see {@link JetStreamServer});
 * `serve` and `consume` are for code outside a Nest app (fixtures, fakes, tools) and use the
 * same consumer and responder underneath.
 *
 * @example
 * await messaging.publishEvent(subject.turnGranted(channelId), EventTypes.turnGranted, data, { id: turnId });
 * const reply = await messaging.request<CheckTurnResult>(Subjects.turn.check, { guildId, channelId, agentId });
 */
export class Messaging {
  private readonly consumers = new Set<RunningConsumer>();
  private readonly subs: { unsubscribe(): void }[] = [];

  constructor(
    readonly client: NatsClient,
    readonly source: string,
    private readonly log: Logger,
  ) {}

  private traceHeaders(extra?: Record<string, string>, span?: TraceContext): MsgHdrs {
    const h = natsHeaders();
    h.set(TRACEPARENT_HEADER, formatTraceparent(span ?? nextSpan(currentTrace())));
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
    const span = tracingEnabled()
      ? startSpan(`publish ${subject}`, SpanKind.PRODUCER, currentTrace(), {
          'messaging.system': 'nats',
          'messaging.destination.name': subject,
          'messaging.message.id': env.id,
          'dirigent.service': this.source,
        })
      : undefined;
    const published = this.client.publisher.publish(subject, JSON.stringify(env), {
      msgID: env.id,
      expectLastSubjectSequence: opts.expectLastSubjectSequence,
      headers: this.traceHeaders(opts.headers, span),
    });
    if (!span) return published;
    return published.then(
      (ack) => {
        span.end();
        return ack;
      },
      (e: unknown) => {
        span.end(e);
        throw e;
      },
    );
  }

  /** Sends a request and returns the reply envelope (`UNAVAILABLE`/`TIMEOUT` when nobody answers). */
  request<R>(subject: string, data: unknown, timeoutMs = 5000): Promise<Reply<R>> {
    // Promises chained by hand rather than async/await: one promise less per call, each of
    // which costs an async-hooks call once AsyncLocalStorage is on (docs/performance.md).
    const failed = (e: unknown): Reply<R> => {
      const text = String((e as Error).message ?? e);
      if (/no responders/i.test(text))
        return fail(ErrorCodes.UNAVAILABLE, `no service answers ${subject}`);
      if (/timeout/i.test(text))
        return fail(ErrorCodes.TIMEOUT, `${subject} did not answer in ${timeoutMs} ms`);
      throw e;
    };
    if (tracingEnabled()) return this.requestTraced<R>(subject, data, timeoutMs, failed);
    try {
      // Outside any trace there is nothing to propagate; the server starts its own, and the
      // request stays header-free (header parsing is most of a small request's cost).
      return this.client.nc
        .request(subject, JSON.stringify(data), {
          timeout: timeoutMs,
          ...(currentTrace() ? { headers: this.traceHeaders() } : {}),
        })
        .then((msg) => msg.json<Reply<R>>(), failed);
    } catch (e) {
      return Promise.reject(e).catch(failed);
    }
  }

  /** {@link request} in an exported client span (OTLP on). */
  private async requestTraced<R>(
    subject: string,
    data: unknown,
    timeoutMs: number,
    failed: (e: unknown) => Reply<R>,
  ): Promise<Reply<R>> {
    const span = startSpan(`request ${subject}`, SpanKind.CLIENT, currentTrace(), {
      'messaging.system': 'nats',
      'messaging.destination.name': subject,
      'dirigent.service': this.source,
    });
    try {
      const msg = await this.client.nc.request(subject, JSON.stringify(data), {
        timeout: timeoutMs,
        headers: this.traceHeaders(undefined, span),
      });
      const reply = msg.json<Reply<R>>();
      span.end(reply.ok ? undefined : reply.error.code);
      return reply;
    } catch (e) {
      span.end(e);
      return failed(e);
    }
  }

  /** Answers requests on `subject` outside a Nest app, with the same envelope rules. */
  serve<T extends object, R>(subject: string, opts: ServeOptions<T, R>): void {
    const responder: Responder = {
      subject,
      log: this.log,
      reply: async (body, msg) => {
        const checked = validatePayload(opts.payload, body);
        if (!checked.ok) {
          const fields = checked.errors.map((e) => e.field || '(body)').join(', ');
          throw new DomainError(
            ErrorCodes.BAD_REQUEST,
            `invalid request: ${fields}`,
            checked.errors,
          );
        }
        return ok((await opts.handler(checked.value, msg)) ?? {});
      },
    };
    const sub = this.client.nc.subscribe(subject, {
      queue: opts.queue ?? subject,
      callback: (err, msg) => {
        if (err) return this.log.error({ err: String(err), subject }, 'subscription error');
        answerRequest(msg, responder);
      },
    });
    this.subs.push(sub);
  }

  /** Runs a durable consumer outside a Nest app, with the same ack/nak/dead-letter rules. */
  async consume<T extends object>(opts: ConsumeOptions<T>): Promise<RunningConsumer> {
    const running = await runDurableConsumer(
      this.client,
      this.source,
      opts,
      async (env, m) => {
        let data = env.data as T;
        if (opts.payload) {
          const checked = validatePayload(opts.payload, env.data);
          if (!checked.ok) {
            throw new PermanentError(
              `invalid payload: ${checked.errors.map((f) => `${f.field} ${f.messages.join('; ')}`).join(', ')}`,
            );
          }
          data = checked.value;
        }
        await opts.handler(data, { ...(env as Envelope<T>), data }, m);
      },
      this.log,
    );
    const tracked: RunningConsumer = {
      done: running.done,
      stop: async () => {
        await running.stop();
        this.consumers.delete(tracked);
      },
    };
    this.consumers.add(tracked);
    return tracked;
  }

  /** Dead letters recorded on `DIRIGENT_DEADLETTER`, newest first. */
  listDeadLetters(limit = 100): Promise<(DeadLetterRecord & { seq: number })[]> {
    return listDeadLetters(this.client, limit);
  }

  async close(): Promise<void> {
    for (const s of this.subs.splice(0)) s.unsubscribe();
    await Promise.all([...this.consumers].map((c) => c.stop()));
  }
}
