import { connect } from '@nats-io/transport-node';
import { errors, headers, type NatsConnection } from '@nats-io/nats-core';
import {
  JetStreamApiError,
  JetStreamError,
  jetstream,
  type JetStreamClient,
} from '@nats-io/jetstream';
import { testNatsUrl } from '@dirigent/testing';
import { NatsClient, JetStreamPublisher } from '.';
import { ensureTestStream, testStream } from '../testing/test-fixtures';

/** Acked publishes against the real JetStream, next to the client's own `js.publish`. */
describe('JetStreamPublisher', () => {
  const { stream, prefix } = testStream('publisher');
  let client: NatsClient;
  let js: JetStreamClient;

  beforeAll(async () => {
    client = await NatsClient.connect({ url: testNatsUrl(), name: 'publisher-test' });
    js = jetstream(client.nc);
    await ensureTestStream(client.jsm, { stream, prefix });
  });
  afterAll(async () => {
    await client.jsm.streams.delete(stream).catch(() => undefined);
    await client.close();
  });

  it('resolves with the ack js.publish gives, headers stored, a repeated id a duplicate', async () => {
    const h = headers();
    h.set('X-Probe', 'one');
    const ack = await client.publisher.publish(`${prefix}.a`, '{"n":1}', {
      msgID: 'a-1',
      headers: h,
    });
    expect(ack).toEqual({ stream, seq: expect.any(Number), duplicate: false });
    const again = await client.publisher.publish(`${prefix}.a`, '{"n":1}', { msgID: 'a-1' });
    expect(again).toEqual({ stream, seq: ack.seq, duplicate: true });
    const viaClient = await js.publish(`${prefix}.a`, '{"n":1}', { msgID: 'a-1' });
    expect(viaClient).toEqual(again);

    const stored = (await client.jsm.streams.getMessage(stream, { seq: ack.seq }))!;
    expect(stored.json()).toEqual({ n: 1 });
    expect(stored.header.get('X-Probe')).toBe('one');
    expect(stored.header.get('Nats-Msg-Id')).toBe('a-1');
  });

  it('matches many acks in flight at once to their publishes', async () => {
    const acks = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        client.publisher.publish(`${prefix}.many.${i}`, String(i), { msgID: `many-${i}` }),
      ),
    );
    for (const [i, ack] of acks.entries()) {
      const m = (await client.jsm.streams.getMessage(stream, { seq: ack.seq }))!;
      expect(m.subject).toBe(`${prefix}.many.${i}`);
    }
    expect(client.publisher.pending).toBe(0);
  });

  it('refuses a wrong expected subject sequence as the server error (err_code 10071)', async () => {
    const subject = `${prefix}.seq`;
    const first = await client.publisher.publish(subject, '1', { expectLastSubjectSequence: 0 });
    await client.publisher.publish(subject, '2', { expectLastSubjectSequence: first.seq });
    const stale = client.publisher.publish(subject, '3', { expectLastSubjectSequence: first.seq });
    await expect(stale).rejects.toBeInstanceOf(JetStreamApiError);
    await expect(stale).rejects.toMatchObject({ code: 10071, status: 400 });
  });

  it('rejects a subject no stream takes with a JetStreamError caused by no responders', async () => {
    const e = await client.publisher.publish(`nostream.${prefix}.x`, 'x').catch((err) => err);
    expect(e).toBeInstanceOf(JetStreamError);
    expect((e as Error).cause).toBeInstanceOf(errors.NoRespondersError);
  });

  describe('with an ack that never comes', () => {
    let nc: NatsConnection;
    beforeEach(async () => {
      nc = await connect({ servers: testNatsUrl() });
      // A plain subscriber that never answers stands in for a stream that does not ack.
      nc.subscribe(`silent.${prefix}.>`, { callback: () => undefined });
      await nc.flush();
    });
    afterEach(() => nc.close().catch(() => undefined));

    it('times out each publish after its time, the others still answered', async () => {
      const publisher = new JetStreamPublisher(client.nc, 1_000);
      const silent = publisher.publish(`silent.${prefix}.x`, 'x').catch((e) => e);
      await new Promise((r) => setTimeout(r, 500));
      const later = publisher.publish(`silent.${prefix}.y`, 'y').catch((e) => e);
      const answered = publisher.publish(`${prefix}.timeout`, 'z');
      await expect(answered).resolves.toMatchObject({ stream });
      const first = await silent;
      expect(first).toBeInstanceOf(errors.TimeoutError);
      expect(publisher.pending).toBe(1); // the later one still has its time
      expect(await later).toBeInstanceOf(errors.TimeoutError);
      expect(publisher.pending).toBe(0);
    });

    it('rejects what waits when the connection closes', async () => {
      const own = await connect({ servers: testNatsUrl() });
      const publisher = new JetStreamPublisher(own, 60_000);
      const waiting = publisher.publish(`silent.${prefix}.z`, 'z').catch((e) => e);
      await own.flush();
      await own.close();
      expect(await waiting).toBeInstanceOf(errors.ClosedConnectionError);
      await expect(publisher.publish(`${prefix}.after`, 'x')).rejects.toBeInstanceOf(Error);
    });
  });
});
