import { CustomTransportStrategy, Server, type MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { JsMsg } from '@nats-io/jetstream';
import type { Msg, Subscription } from '@nats-io/nats-core';
import { DomainError, ok, type Envelope, type Reply } from '@dirigent/contracts';
import type { NatsClient } from './connection';
import { JetStreamContext, NatsRequestContext } from './contexts';
import {
  runDurableConsumer,
  type DurableEventOptions,
  type RunningConsumer,
} from './durable-consumer';
import type { Logger } from './errors';
import { observeHandlerLatency, type LatencyLabels } from './metrics';
import type { DirectRequestHandler } from './nest/direct-request-handlers';
import { answerRequest, type Responder } from './responder';

/** Extras of `@MessagePattern(subject, extras)`. */
export interface RequestOptions {
  /** Queue group, so that replicas share the load. Defaults to the subject. */
  queue?: string;
  /**
   * `false`: the handler runs without the server's `around` wrapper (in the services, a fresh
   * ORM request context), for a hot handler that touches no database. Forking the entity
   * manager costs more than answering check-turn from memory.
   */
  around?: boolean;
}

/** Extras of `@EventPattern(subject, extras)`: the durable consumer's settings, and more. */
export interface EventOptions extends DurableEventOptions {
  /**
   * `false`: deliveries are handled without the server's `around` wrapper, as for a request
   * (RequestOptions.around), for a consumer that touches no database: the coordinator's
   * reactor forked an entity manager for every channel commit and never used it.
   */
  around?: boolean;
}

/** What an exception filter answers for a failed request (see ReplyEnvelopeFilter). */
export class FailedReply {
  constructor(readonly reply: Reply<never>) {}
}

export interface JetStreamServerOptions {
  client: NatsClient;
  /** The envelope `source` of records this server publishes (dead letters). */
  source: string;
  log: Logger;
  /** Settings that come from configuration, by durable name (e.g. concurrency). */
  consumerOverrides?: Record<string, Partial<DurableEventOptions>>;
  /** Runs around every handler call, e.g. to give it a fresh ORM request context. */
  around?: <T>(fn: () => Promise<T>) => Promise<T>;
}

async function settle(result: unknown): Promise<unknown> {
  const value = await result;
  return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
}

/**
 * The reply envelope for what a request handler returned: a value, or a promise or observable
 * of one (the filter's FailedReply included); at once when it is a value.
 */
function toReply(result: unknown): Reply<unknown> | Promise<Reply<unknown>> {
  if (result instanceof Promise) return result.then(toReply);
  if (isObservable(result)) return lastValueFrom(result, { defaultValue: undefined }).then(toReply);
  return result instanceof FailedReply ? result.reply : ok(result ?? {});
}

/**
 * The answers of one `@MessagePattern` subscription: its handler (Nest's chain, or the direct
 * call of the method) in the server's `around` wrapper when it has one, each reply observed in
 * the handler latency histogram. One object per subscription, so that answering a request
 * makes no closures (see answerRequest).
 */
class PatternResponder implements Responder {
  private readonly ok: LatencyLabels;

  constructor(
    readonly subject: string,
    readonly log: Logger,
    private readonly handler: DirectRequestHandler,
    private readonly around?: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {
    this.ok = { kind: 'rpc', name: subject, outcome: 'ok' };
  }

  reply(body: object, msg: Msg): Reply<unknown> | Promise<Reply<unknown>> {
    if (!this.around) return this.call(body, msg);
    return this.around(() => Promise.resolve(this.call(body, msg)));
  }

  replied(reply: Reply<unknown>, startedAt: number): void {
    const labels = reply.ok ? this.ok : { ...this.ok, outcome: reply.error.code };
    observeHandlerLatency(labels, startedAt);
  }

  private call(body: object, msg: Msg): Reply<unknown> | Promise<Reply<unknown>> {
    return toReply(this.handler(body, new NatsRequestContext([msg])));
  }
}

/**
 * NATS for `@nestjs/microservices`: every `@EventPattern(subject, DurableEventOptions)` is a
 * durable JetStream pull consumer (ack after the handler resolves, nak with backoff on a
 * throw, term and dead letter when redelivery cannot help), every
 * `@MessagePattern(subject, RequestOptions)` a core NATS queue subscription answered with the
 * reply envelope. Built on the `@nats-io` v3 clients (the successors of the `nats` package
 * Nest's own NATS transporter needs).
 *
 * @example
 * app.connectMicroservice({ strategy: new JetStreamServer({ client, source: 'memory', log }) });
 * await app.init();
 * await app.startAllMicroservices();
 */
export class JetStreamServer extends Server implements CustomTransportStrategy {
  private readonly consumers: RunningConsumer[] = [];
  private readonly subscriptions: Subscription[] = [];
  private directHandlers?: () => Map<string, DirectRequestHandler>;

  constructor(private readonly opts: JetStreamServerOptions) {
    super();
  }

  /**
   * Request handlers that may be called without Nest's per-call chain, by subject (see
   * `directRequestHandlers`); asked for when the server starts listening.
   */
  useDirectHandlers(find: () => Map<string, DirectRequestHandler>): void {
    this.directHandlers = find;
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      const direct = this.directHandlers?.() ?? new Map<string, DirectRequestHandler>();
      for (const [pattern, head] of this.messageHandlers) {
        for (let h: MessageHandler | undefined = head; h; h = h.next) {
          if (h.isEventHandler) await this.startConsumer(pattern, h);
          else this.subscribe(pattern, h, h === head && !h.next ? direct.get(pattern) : undefined);
        }
      }
      // Subscriptions reach the server asynchronously: ready means the server has them.
      await this.opts.client.nc.flush();
      callback();
    } catch (e) {
      callback(e);
    }
  }

  async close(): Promise<void> {
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
    await Promise.all(this.consumers.splice(0).map((c) => c.stop()));
  }

  on(): never {
    throw new Error('JetStreamServer has no events to listen to');
  }

  unwrap<T>(): T {
    return this.opts.client as T;
  }

  private async startConsumer(pattern: string, handler: MessageHandler): Promise<void> {
    const extras = handler.extras as EventOptions | undefined;
    if (!extras?.stream || !extras.durable || !extras.maxDeliver || !extras.ackWaitMs) {
      throw new Error(
        `@EventPattern('${pattern}') needs { stream, durable, maxDeliver, ackWaitMs } extras`,
      );
    }
    const { around: wrapped, ...settings } = extras;
    const spec: DurableEventOptions = {
      ...settings,
      ...this.opts.consumerOverrides?.[extras.durable],
      filterSubject: extras.filterSubject ?? pattern,
    };
    const call = (env: Envelope, m: JsMsg) =>
      settle(handler(env.data, new JetStreamContext([m, env, spec])));
    const bare = this.runsBare(wrapped);
    this.consumers.push(
      await runDurableConsumer(
        this.opts.client,
        this.opts.source,
        spec,
        (env, m) =>
          this.observed('consumer', spec.durable, async () => {
            await (bare ? call(env, m) : this.around(() => call(env, m)));
            return 'ok';
          }),
        this.opts.log,
      ),
    );
  }

  private subscribe(pattern: string, handler: MessageHandler, direct?: DirectRequestHandler): void {
    const extras = handler.extras as RequestOptions | undefined;
    // Without a wrapper the handler's result is used as it is: an answer at once is sent at
    // once, in the subscription's callback, with no promise in between.
    const around = this.runsBare(extras?.around) ? undefined : this.opts.around;
    const responder = new PatternResponder(pattern, this.opts.log, direct ?? handler, around);
    const sub = this.opts.client.nc.subscribe(pattern, {
      queue: extras?.queue ?? pattern,
      callback: (err, msg) => {
        if (err) {
          this.opts.log.error({ err: String(err), subject: pattern }, 'subscription error');
          return;
        }
        answerRequest(msg, responder);
      },
    });
    this.subscriptions.push(sub);
  }

  /** Without a wrapper, or when the handler says `around: false`: called as it is. */
  private runsBare(around: boolean | undefined): boolean {
    return !this.opts.around || around === false;
  }

  private around<T>(fn: () => Promise<T>): Promise<T> {
    return this.opts.around ? this.opts.around(fn) : fn();
  }

  /**
   * Observes a handler call in `dirigent_handler_duration_seconds`. Measured here rather than
   * in a Nest interceptor: an interceptor wraps every call in an rxjs pipeline, which cost
   * about as much as the whole validation pipe on check-turn (bench/foundation.bench.ts).
   */
  private async observed(
    kind: 'rpc' | 'consumer',
    name: string,
    call: () => Promise<string>,
  ): Promise<void> {
    const started = performance.now();
    let outcome = 'error';
    try {
      outcome = await call();
    } catch (e) {
      outcome = e instanceof DomainError ? e.code : 'error';
      throw e;
    } finally {
      observeHandlerLatency({ kind, name, outcome }, started);
    }
  }
}
