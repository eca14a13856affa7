import { Messaging, NatsClient, ensureStream } from '@dirigent/messaging';
import { StreamSpecs } from '@dirigent/contracts';
import { testNatsUrl } from './env';

/** A Messaging connected to the machine's NATS, with the shared streams provisioned. */
export async function testMessaging(name = 'test'): Promise<Messaging> {
  const client = await NatsClient.connect({ url: testNatsUrl(), name });
  for (const spec of Object.values(StreamSpecs)) await ensureStream(client.jsm, spec);
  const quiet = () => undefined;
  return new Messaging(client, name, { info: quiet, warn: quiet, error: quiet });
}

export async function closeMessaging(m: Messaging): Promise<void> {
  await m.close();
  await m.client.close();
}
