import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { closeMessaging, testMessaging, uid } from '@dirigent/testing';
import { connectJetStreamTransport, type TransportOptions } from '../src/nest/connect';
import { ensureStream } from '../src/provision';
import type { Messaging } from '../src/messaging';
import type { JetStreamManager } from '@nats-io/jetstream';

/** A stream of a test's own (`TEST_<name>_…`, subjects `test.<stream>.>`). */
export function testStream(name: string): { stream: string; prefix: string } {
  const stream = `TEST_${uid(name).replace(/-/g, '_').toUpperCase()}`;
  return { stream, prefix: `test.${stream.toLowerCase()}` };
}

/** Creates the test stream `stream` over `<prefix>.>` (limits, a minute's de-duplication). */
export async function ensureTestStream(
  jsm: JetStreamManager,
  { stream, prefix }: { stream: string; prefix: string },
): Promise<void> {
  await ensureStream(jsm, {
    name: stream as never,
    subjects: [`${prefix}.>`],
    retention: 'limits',
    duplicateWindowMs: 60_000,
  });
}

/** A Nest app serving `controllers` over the JetStream transport, on a test stream of its own. */
export interface ProbeApp {
  m: Messaging;
  app: INestApplication;
  close(): Promise<void>;
}

export async function startProbeApp(
  connectionName: string,
  { stream, prefix }: { stream: string; prefix: string },
  controllers: Type[],
  transport: Partial<TransportOptions> = {},
): Promise<ProbeApp> {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const m = await testMessaging(connectionName);
  await ensureTestStream(m.client.jsm, { stream, prefix });
  const moduleRef = await Test.createTestingModule({ controllers }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  connectJetStreamTransport(app, { client: m.client, source: 'probe', log: quiet, ...transport });
  await app.init();
  await app.startAllMicroservices();
  return {
    m,
    app,
    close: async () => {
      await app.close();
      await m.client.jsm.streams.delete(stream).catch(() => undefined);
      await closeMessaging(m);
    },
  };
}
