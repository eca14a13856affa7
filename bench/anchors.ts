import { Controller, type INestApplication, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { connectJetStreamTransport, type NatsClient } from '@dirigent/messaging';

/**
 * The anchors the request/reply benches are measured against, in the same run:
 * a raw @nats-io echo responder, and the same echo as a Nest `@MessagePattern` served by the
 * services' transport (JetStreamServer, the contract validation pipe, the reply envelope).
 */

/** A raw @nats-io responder on `subject`: parses the JSON body, answers `reply(body)`. */
export function rawEcho(
  nc: NatsConnection,
  subject: string,
  reply: (body: Record<string, unknown>) => unknown,
): Subscription {
  return nc.subscribe(subject, {
    callback: (_e, msg) => {
      const body = msg.json<Record<string, unknown>>();
      msg.respond(JSON.stringify({ ok: true, data: reply(body) }));
    },
  });
}

/**
 * A Nest app whose one `@MessagePattern(subject)` takes a `payload` (validated by the contract
 * pipe) and answers `reply(payload)`, served over `client` by the JetStream transport.
 */
export async function nestEcho<T extends object>(
  client: NatsClient,
  subject: string,
  payload: Type<T>,
  reply: (p: T) => unknown,
): Promise<INestApplication> {
  @Controller()
  class EchoHandler {
    @MessagePattern(subject)
    echo(@Payload() p: T) {
      return reply(p);
    }
  }
  // The parameter's class is what the pipe validates; a generic parameter has none.
  Reflect.defineMetadata('design:paramtypes', [payload], EchoHandler.prototype, 'echo');
  const moduleRef = await Test.createTestingModule({ controllers: [EchoHandler] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  const quiet = () => undefined;
  connectJetStreamTransport(app, {
    client,
    source: 'bench',
    log: { info: quiet, warn: quiet, error: quiet },
  });
  await app.init();
  await app.startAllMicroservices();
  return app;
}
