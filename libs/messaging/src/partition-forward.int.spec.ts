import { closeMessaging, testMessaging, uid } from '@dirigent/testing';
import type { Messaging } from './messaging';
import { PartitionForward } from './partition-forward';

interface Ask {
  key: string;
}

/**
 * Two replicas on the test NATS, each on a subject of its own (a prefix of this file's):
 * the owner answers what it owns, refuses the rest, and a failing or absent owner leaves the
 * asker to answer itself.
 */
describe('PartitionForward', () => {
  const prefix = uid('fwd').replace(/[^A-Za-z0-9_-]/g, '_');
  const warned: string[] = [];
  const log = { warn: (e: Record<string, unknown>) => void warned.push(String(e.err)) };
  let a: Messaging;
  let b: Messaging;

  beforeAll(async () => {
    a = await testMessaging('forward-a');
    b = await testMessaging('forward-b');
  });
  afterAll(async () => {
    await closeMessaging(a);
    await closeMessaging(b);
  });

  const door = (m: Messaging, timeoutMs = 2_000) =>
    new PartitionForward<Ask, { said: string }>(
      () => m.client.nc,
      (replica) => `${prefix}.${replica}.ask`,
      timeoutMs,
      log,
    );

  it('brings the owner’s answer, and nothing when the owner refuses or fails', async () => {
    const sub = door(b).serve('b', async (body) => {
      const { key } = body as Ask;
      if (key === 'boom') throw new Error('store down');
      return key.startsWith('mine') ? { said: `b has ${key}` } : null;
    });
    await b.client.nc.flush();
    const asker = door(a);

    await expect(asker.ask('b', { key: 'mine-1' })).resolves.toEqual({ said: 'b has mine-1' });
    await expect(asker.ask('b', { key: 'theirs' })).resolves.toBeUndefined();
    await expect(asker.ask('b', { key: 'boom' })).resolves.toBeUndefined();
    expect(warned).toEqual(['store down']);
    sub.unsubscribe();
  });

  it('answers nothing for an owner no one serves or one too slow', async () => {
    const slow = door(b).serve(
      'slow',
      () => new Promise((r) => setTimeout(() => r({ said: 'late' }), 500)),
    );
    await b.client.nc.flush();
    await expect(door(a).ask('gone', { key: 'mine' })).resolves.toBeUndefined();
    await expect(door(a, 100).ask('slow', { key: 'mine' })).resolves.toBeUndefined();
    slow.unsubscribe();
  });
});
