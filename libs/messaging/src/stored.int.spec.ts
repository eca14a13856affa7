import { testNatsUrl } from '@dirigent/testing';
import { NatsClient, removeStoredMessage, storedMessage } from '.';
import { ensureTestStream, testStream } from '../testing/test-fixtures';

/** Reading and removing one stored message of a real JetStream stream. */
describe('stored messages', () => {
  const { stream, prefix } = testStream('stored');
  let client: NatsClient;
  const publish = async (n: number) =>
    (await client.publisher.publish(`${prefix}.a`, JSON.stringify({ n }))).seq;

  beforeAll(async () => {
    client = await NatsClient.connect({ url: testNatsUrl(), name: 'stored-test' });
    await ensureTestStream(client.jsm, { stream, prefix });
  });
  afterAll(async () => {
    await client.jsm.streams.delete(stream).catch(() => undefined);
    await client.close();
  });

  it('reads the last message of a subject, or nothing', async () => {
    expect(await storedMessage(client.jsm, stream, { last_by_subj: `${prefix}.none` })).toBe(
      undefined,
    );
    const seq = await publish(1);
    const last = await storedMessage(client.jsm, stream, { last_by_subj: `${prefix}.a` });
    expect(last?.seq).toBe(seq);
    expect(last?.json()).toEqual({ n: 1 });
  });

  it('removes a message once; removing it again, or one purged, is no error', async () => {
    const first = await publish(2);
    const last = await publish(3);
    expect(await removeStoredMessage(client.jsm, stream, last)).toBe(true);
    // JetStream says "sequence <n> not found" for the last message deleted again.
    expect(await removeStoredMessage(client.jsm, stream, last)).toBe(false);
    await client.jsm.streams.purge(stream, { seq: last });
    // … and "no message found" below the stream's first sequence.
    expect(await removeStoredMessage(client.jsm, stream, first)).toBe(false);
    expect(await storedMessage(client.jsm, stream, { seq: first })).toBe(undefined);
  });

  it('other failures are thrown', async () => {
    await expect(removeStoredMessage(client.jsm, 'NO_SUCH_STREAM_STORED', 1)).rejects.toThrow(
      /stream not found/,
    );
  });
});
