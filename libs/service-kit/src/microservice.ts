import { Logger as NestLogger, type INestApplication } from '@nestjs/common';
import { MikroORM, RequestContext } from '@mikro-orm/postgresql';
import {
  connectJetStreamTransport,
  NatsClient,
  type DurableEventOptions,
  type Logger,
} from '@dirigent/messaging';

function nestLogger(name: string): Logger {
  const log = new NestLogger(name);
  return {
    info: (o, m) => log.log({ ...o, msg: m }),
    warn: (o, m) => log.warn({ ...o, msg: m }),
    error: (o, m) => log.error({ ...o, msg: m }),
  };
}

/**
 * Makes a service a hybrid app (see `connectJetStreamTransport`) whose NATS handlers each
 * run in a fresh MikroORM request context (CONTRIBUTING.md § Habits). Call before `app.init()`.
 */
export function connectJetStream(
  app: INestApplication,
  service: string,
  consumerOverrides?: Record<string, Partial<DurableEventOptions>>,
): void {
  const orm = app.get(MikroORM);
  connectJetStreamTransport(app, {
    client: app.get(NatsClient),
    source: service,
    log: nestLogger(`${service}:transport`),
    consumerOverrides,
    around: (fn) => RequestContext.create(orm.em, fn),
  });
}
