import { Streams, subject as subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import {
  closeMessaging,
  spawnNode,
  testMessaging,
  testNatsUrl,
  uid,
  waitFor,
} from '@dirigent/testing';

const WORKER = 'dist/libs/testing/src/fixtures/timer-worker.js';

describe('a durable timer whose process is killed', () => {
  let messaging: Messaging;
  beforeAll(async () => {
    messaging = await testMessaging('timers-e2e');
  });
  afterAll(() => closeMessaging(messaging));

  it('fires once after new processes start, even two of them', async () => {
    const owner = uid('owner');
    const fireSubject = subjects.timerFired('fixture', owner);
    const env = {
      NATS_URL: testNatsUrl(),
      TIMER_OWNER: owner,
      TIMER_KEY: 'delivery:turn-1',
      FIRE_SUBJECT: fireSubject,
    };
    const scheduler = spawnNode(WORKER, {
      ...env,
      MODE: 'schedule',
      DUE_AT: String(Date.now() + 1500),
    });
    await scheduler.waitForLine('scheduled');
    await scheduler.kill('SIGKILL');

    // Two replicas of the owner start; both see the timer, it must still fire once.
    const a = spawnNode(WORKER, { ...env, MODE: 'run' });
    const b = spawnNode(WORKER, { ...env, MODE: 'run' });
    try {
      await Promise.all([a.waitForLine('ready'), b.waitForLine('ready')]);
      const count = async () => {
        const info = await messaging.client.jsm.streams.info(Streams.timerFired, {
          subjects_filter: fireSubject,
        });
        return info.state.subjects?.[fireSubject] ?? 0;
      };
      await waitFor(async () => (await count()) >= 1, 15_000, 50, 'the timer to fire');
      await new Promise((r) => setTimeout(r, 1500));
      expect(await count()).toBe(1);
      const sm = await messaging.client.jsm.streams.getMessage(Streams.timerFired, {
        last_by_subj: fireSubject,
      });
      expect(sm!.json<{ type: string; data: { key: string } }>()).toMatchObject({
        type: 'FixtureTimerFired',
        data: { key: 'delivery:turn-1' },
      });
    } finally {
      await Promise.all([a.kill(), b.kill()]);
    }
  });
});
