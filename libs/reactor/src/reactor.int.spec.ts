import { subject, type Envelope } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import { DurableTimers } from '@dirigent/timers';
import { occurrence, Reactor, timer, type Lineage } from './index';

describe('Reactor on durable timers', () => {
  let messaging: Messaging;
  beforeAll(async () => {
    messaging = await testMessaging('reactor-int');
  });
  afterAll(() => closeMessaging(messaging));

  it('a re-armed key fires once, at its last time, naming the job run that armed it last', async () => {
    const owner = uid('r');
    const due = timer({ subject: subject.timerFired('test', owner), type: 'test.nudge-due' });
    const reactor = new Reactor({ timers: await DurableTimers.open(messaging, owner) });
    const runs: { key: string; lineage: Lineage }[] = [];
    reactor.job({
      name: 'nudge',
      trigger: due,
      parse: (d) => d as { key: string },
      run: (d, f) => runs.push({ key: d.key, lineage: f.lineage }),
    });
    const sub = messaging.client.nc.subscribe(due.subject, {
      callback: (_e, m) => void reactor.offer(occurrence('timer', m.subject, m.json<Envelope>())),
    });
    await reactor.start();
    try {
      await reactor.arm(due, 'a', Date.now() + 60_000, { key: 'a' }, 'decision-1');
      await reactor.arm(due, 'a', Date.now() + 100, { key: 'a' }, 'decision-2');
      await reactor.arm(due, 'b', Date.now() + 100, { key: 'b' });
      await reactor.disarm('b');
      await reactor.arm(due, 'c', Date.now() + 300, { key: 'c' });
      await waitFor(() => runs.some((r) => r.key === 'c'), 10_000);
      // b was due before c and cancelled; a fired once, from its second arming.
      expect(runs.map((r) => r.key)).toEqual(['a', 'c']);
      expect(runs[0].lineage).toEqual({
        job: 'nudge',
        trigger: 'timer',
        causeId: expect.any(String),
        parentId: 'decision-2',
      });
      expect(runs[1].lineage.parentId).toBeUndefined();
    } finally {
      sub.unsubscribe();
      await reactor.stop();
    }
  });
});
