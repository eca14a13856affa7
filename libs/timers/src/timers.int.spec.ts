import { Kvm } from '@nats-io/kv';
import { Buckets, envelope, subject as subjects, Streams } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import { DurableTimers } from '.';

describe('DurableTimers', () => {
  let messaging: Messaging;
  beforeAll(async () => {
    messaging = await testMessaging('timers-int');
  });
  afterAll(() => closeMessaging(messaging));

  async function firedOn(subject: string): Promise<number> {
    const info = await messaging.client.jsm.streams.info(Streams.timerFired, {
      subjects_filter: subject,
    });
    return info.state.subjects?.[subject] ?? 0;
  }

  it('fires a due timer, never a cancelled one, and a rescheduled one only at its new time', async () => {
    const owner = uid('o');
    const timers = await DurableTimers.open(messaging, owner);
    await timers.start();
    try {
      const fired = subjects.timerFired('test', owner);
      const cancelled = subjects.timerFired('test', `${owner}-cancelled`);
      const moved = subjects.timerFired('test', `${owner}-moved`);
      const soon = () => new Date(Date.now() + 200);
      await timers.schedule('a', soon(), { subject: fired, type: 'T', data: { k: 'a' } });
      await timers.schedule('b', soon(), { subject: cancelled, type: 'T', data: { k: 'b' } });
      await timers.cancel('b');
      await timers.schedule('c', soon(), { subject: moved, type: 'T', data: { k: 'c' } });
      await timers.schedule('c', new Date(Date.now() + 60_000), {
        subject: moved,
        type: 'T',
        data: { k: 'c' },
      });

      await waitFor(async () => (await firedOn(fired)) === 1, 5000, 25, 'timer a');
      await new Promise((r) => setTimeout(r, 500));
      expect(await firedOn(cancelled)).toBe(0);
      expect(await firedOn(moved)).toBe(0);
      expect(timers.size).toBe(1); // only "c", a minute away
      // What the bucket says is pending: "c" only (fired "a", cancelled "b", never "d").
      const pending = await Promise.all(['a', 'b', 'c', 'd'].map((k) => timers.isPending(k)));
      expect(pending).toEqual([false, false, true, false]);
      await timers.cancel('c');
      expect(await timers.isPending('c')).toBe(false);
      await waitFor(() => timers.size === 0, 2000);
    } finally {
      await timers.stop();
    }
  });

  /** Messages the bucket holds under `owner`: what a starting watcher replays. */
  async function stored(owner: string): Promise<number> {
    const info = await messaging.client.jsm.streams.info(`KV_${Buckets.timers}`, {
      subjects_filter: `$KV.${Buckets.timers}.${owner}.>`,
    });
    return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  }

  it('leaves nothing in the bucket after 2,000 fired and cancelled timers, so a start reads nothing', async () => {
    const owner = uid('o');
    const fired = subjects.timerFired('test', `${owner}-many`);
    const timers = await DurableTimers.open(messaging, owner);
    await timers.start();
    try {
      const now = new Date();
      for (let i = 0; i < 2000; i += 100) {
        await Promise.all(
          Array.from({ length: 100 }, (_, j) =>
            timers.schedule(`t${i + j}`, now, { subject: fired, type: 'T', data: { i: i + j } }),
          ),
        );
      }
      for (let i = 0; i < 200; i++) {
        await timers.schedule(`c${i}`, new Date(Date.now() + 60_000), {
          subject: fired,
          type: 'T',
          data: {},
        });
        await timers.cancel(`c${i}`);
      }
      await waitFor(async () => (await firedOn(fired)) === 2000, 60_000, 100, '2,000 timers');
      await waitFor(async () => (await stored(owner)) === 0, 10_000, 100, 'an empty bucket');
    } finally {
      await timers.stop();
    }
    // Markers an older version left behind (plain deletes) are swept by the next start.
    const kv = await new Kvm(messaging.client.js).open(Buckets.timers);
    for (let i = 0; i < 20; i++) {
      await kv.put(`${owner}.old${i}`, '{}');
      await kv.delete(`${owner}.old${i}`);
    }
    expect(await stored(owner)).toBe(20);
    const next = await DurableTimers.open(messaging, owner);
    await next.start();
    try {
      await waitFor(async () => (await stored(owner)) === 0, 10_000, 50, 'the old markers swept');
      expect(next.size).toBe(0);
    } finally {
      await next.stop();
    }
    expect(await firedOn(fired)).toBe(2000);
  });

  /** Started timers of a new owner, the subject they fire on, stopped after `fn`. */
  async function withTimers(
    fn: (timers: DurableTimers, fired: string, owner: string) => Promise<void>,
  ): Promise<void> {
    const owner = uid('o');
    const timers = await DurableTimers.open(messaging, owner);
    await timers.start();
    try {
      await fn(timers, subjects.timerFired('test', owner), owner);
    } finally {
      await timers.stop();
    }
  }

  it('fires every timer scheduled while other timers are cancelled', () =>
    // On NATS 2.9 a purge or roll-up of one key moved the bucket's watchers past keys
    // written meanwhile: those timers never fired.
    withTimers(async (timers, fired, owner) => {
      const later = new Date(Date.now() + 60_000);
      const command = (i: number) => ({ subject: fired, type: 'T', data: { i } });
      for (let i = 0; i < 1000; i += 100) {
        await Promise.all(
          Array.from({ length: 100 }, async (_, j) => {
            await timers.schedule(`c${i + j}`, later, command(-1));
            await Promise.all([
              timers.schedule(`k${i + j}`, new Date(), command(i + j)),
              timers.cancel(`c${i + j}`),
            ]);
          }),
        );
      }
      await waitFor(async () => (await firedOn(fired)) === 1000, 60_000, 100, '1,000 timers');
      await waitFor(async () => (await stored(owner)) === 0, 10_000, 100, 'an empty bucket');
    }));

  it('does not fire a timer that left the bucket unseen (its delete marker missed)', () =>
    withTimers(async (timers, fired, owner) => {
      await timers.schedule('gone', new Date(Date.now() + 300), {
        subject: fired,
        type: 'T',
        data: {},
      });
      await waitFor(() => timers.size === 1, 2000);
      // Removed with no marker at all: what a watcher sees when a marker is deleted first.
      const key = `${owner}.${Buffer.from('gone').toString('base64url')}`;
      const entry = await (await new Kvm(messaging.client.js).open(Buckets.timers)).get(key);
      await messaging.client.jsm.streams.deleteMessage(`KV_${Buckets.timers}`, entry!.revision);
      await waitFor(() => timers.size === 0, 5000, 25, 'the due timer looked at');
      expect(await firedOn(fired)).toBe(0);
    }));

  it('keeps a timer rescheduled while its previous revision fires', async () => {
    const owner = uid('o');
    const fired = subjects.timerFired('test', `${owner}-again`);
    const timers = await DurableTimers.open(messaging, owner);
    await timers.start();
    try {
      await timers.schedule('k', new Date(), { subject: fired, type: 'T', data: { n: 1 } });
      await timers.schedule('k', new Date(Date.now() + 300), {
        subject: fired,
        type: 'T',
        data: { n: 2 },
      });
      await waitFor(async () => (await firedOn(fired)) >= 1, 5000, 25, 'the timer');
      await new Promise((r) => setTimeout(r, 200));
      expect(await firedOn(fired)).toBe(1);
      await waitFor(async () => (await stored(owner)) === 0, 5000, 25, 'an empty bucket');
    } finally {
      await timers.stop();
    }
  });

  it('refuses an owner name that would break the key space', async () => {
    await expect(DurableTimers.open(messaging, 'bad.owner')).rejects.toThrow(/invalid timer owner/);
    expect(envelope('x', 'y', {}).id).toBeTruthy();
  });
});
