import type { AddressInfo } from 'node:net';
import { Streams, subject, type DeadLetterRecord } from '@dirigent/contracts';
import { uid } from '@dirigent/testing';
import { Harness } from './harness';

const TOKEN = `dl-${uid('tok')}-0123456789`;
const REDRIVEN = subject.timerFired('dl-int', 'redriven');

/** The control page's dead-letter actions: re-drive and discard, both behind the token. */
describe('control page: dead letters', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await Harness.start({ DIRIGENT_CONTROL_TOKEN: TOKEN });
    const { port } = h.app!.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}/dirigent/api/dead-letters`;
  });
  afterAll(async () => {
    await h?.close();
  });

  const deadLetter = async (content: string) => {
    const record: DeadLetterRecord = {
      stream: Streams.discordCommands,
      durable: 'dl-int',
      // A subject nobody here consumes: the re-driven payload is not an envelope.
      subject: REDRIVEN,
      streamSeq: 1,
      deliveries: 5,
      error: 'Missing Access',
      payload: JSON.stringify({ content }),
    };
    const { seq } = await h.messaging.publishEvent(
      subject.deadLetter(Streams.discordCommands, 'dl-int'),
      'dead-letter',
      record,
    );
    return seq;
  };
  const post = (path: string, token?: string) =>
    fetch(`${base}/${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: '{}',
    });
  const listed = async () => {
    const res = await fetch(base, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = (await res.json()) as { data: { deadLetters: { seq: number }[] } };
    return body.data.deadLetters.map((d) => d.seq);
  };

  it('refuses both actions without the token and changes nothing', async () => {
    const seq = await deadLetter(`kept ${uid('c')}`);
    for (const action of ['redrive', 'discard']) {
      expect((await post(`${seq}/${action}`)).status).toBe(401);
      expect((await post(`${seq}/${action}`, `${TOKEN}x`)).status).toBe(401);
    }
    expect(await listed()).toContain(seq);
  });

  it('discards a dead letter for good; a second discard finds nothing', async () => {
    const seq = await deadLetter(`discarded ${uid('c')}`);
    const res = await post(`${seq}/discard`, TOKEN);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, data: { discarded: seq } });
    expect(await listed()).not.toContain(seq);
    const again = await post(`${seq}/discard`, TOKEN);
    expect(again.status).toBe(404);
    expect((await post('zero/discard', TOKEN)).status).toBe(400);
  });

  it('re-drives with the token and keeps the record', async () => {
    const seq = await deadLetter(`re-driven ${uid('c')}`);
    const res = await post(`${seq}/redrive`, TOKEN);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, data: { subject: REDRIVEN } });
    expect(await listed()).toContain(seq);
  });
});
