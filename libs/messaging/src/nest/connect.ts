import type { INestApplication } from '@nestjs/common';
import type { MicroserviceOptions, NestMicroservice } from '@nestjs/microservices';
import type { NatsClient } from '../connection';
import type { DurableEventOptions } from '../durable-consumer';
import type { Logger } from '../errors';
import { JetStreamServer } from '../jetstream.server';
import { ContractValidationPipe } from './contract-validation.pipe';
import { directRequestHandlers } from './direct-request-handlers';
import { ReplyEnvelopeFilter } from './reply-envelope.filter';

export interface TransportOptions {
  client: NatsClient;
  /** Envelope `source` of what the transport publishes itself (dead letters). */
  source: string;
  log: Logger;
  /** Settings that come from configuration, by durable name (e.g. concurrency). */
  consumerOverrides?: Record<string, Partial<DurableEventOptions>>;
  /** Runs around every handler call, e.g. to give it a fresh ORM request context. */
  around?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/**
 * Makes `app` a hybrid app whose `@EventPattern`/`@MessagePattern` controllers are served
 * over JetStream and NATS, with the contract's validation pipe and the reply-envelope filter
 * (the transport itself measures handler latency and carries trace context). Call before `app.init()`; `app.startAllMicroservices()` starts them.
 */
export function connectJetStreamTransport(app: INestApplication, opts: TransportOptions): void {
  const strategy = new JetStreamServer({
    client: opts.client,
    source: opts.source,
    log: opts.log,
    consumerOverrides: opts.consumerOverrides,
    around: opts.around,
  });
  // Deferred, so that the handlers are built after the enhancers below are set (otherwise
  // connectMicroservice builds them at once, without them). The app's own init() runs the
  // lifecycle hooks; marking them called keeps the microservice from running them twice.
  const ms = app.connectMicroservice<MicroserviceOptions>(
    { strategy },
    { inheritAppConfig: false, deferInitialization: true },
  ) as NestMicroservice;
  const pipe = new ContractValidationPipe();
  const filter = new ReplyEnvelopeFilter(opts.log);
  ms.useGlobalPipes(pipe);
  ms.useGlobalFilters(filter);
  ms.registerListeners();
  strategy.useDirectHandlers(() => directRequestHandlers(ms, pipe, filter));
  ms.setIsInitialized(true);
  ms.setIsInitHookCalled(true);
}
