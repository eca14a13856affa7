import { envelope, subject as subjects, Streams } from '@dirigent/contracts';
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
      await timers.cancel('c');
      await waitFor(() => timers.size === 0, 2000);
    } finally {
      await timers.stop();
    }
  });

  it('refuses an owner name that would break the key space', async () => {
    await expect(DurableTimers.open(messaging, 'bad.owner')).rejects.toThrow(/invalid timer owner/);
    expect(envelope('x', 'y', {}).id).toBeTruthy();
  });
});
