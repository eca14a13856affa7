import { subject as subjects } from '@dirigent/contracts';
import {
  currentTrace,
  startUnexportedTracing,
  withSpan,
  type Messaging,
  type TraceContext,
} from '@dirigent/messaging';
import { closeMessaging, KeptSpans, testMessaging, uid, waitFor } from '@dirigent/testing';
import { DurableTimers } from '.';

/**
 * A timer fires minutes after what scheduled it (a speculative turn, a follow-up, a delivery
 * timeout): its firing is the root of a trace of its own, with a span link to the span that
 * scheduled it, and the publish of its command is a child of that root.
 */
describe('DurableTimers in traces (SDK loaded, nothing exported)', () => {
  const kept = new KeptSpans();
  let tracing: { shutdown(): Promise<void> };
  let messaging: Messaging;

  beforeAll(async () => {
    messaging = await testMessaging('timer-traces-int');
    tracing = await startUnexportedTracing('timer-traces-test', kept);
  });
  afterAll(async () => {
    await tracing?.shutdown();
    await closeMessaging(messaging);
  });

  it('fires in a new trace linked to the span that scheduled the timer', async () => {
    const owner = uid('o');
    const timers = await DurableTimers.open(messaging, owner);
    await timers.start();
    try {
      const fired = subjects.timerFired('test', owner);
      let scheduler: TraceContext | undefined;
      await withSpan('schedule', {}, async () => {
        scheduler = currentTrace();
        await timers.schedule('a', new Date(Date.now() + 100), {
          subject: fired,
          type: 'T',
          data: { k: 'a' },
        });
      });
      const root = await waitFor(
        () => kept.spans.find((s) => s.name === `timer ${fired}`),
        5000,
        25,
        'the firing span',
      );
      expect(root.parentSpanContext).toBeUndefined();
      expect(root.spanContext().traceId).not.toBe(scheduler!.traceId);
      expect(root.links.map((l) => l.context)).toEqual([
        expect.objectContaining({ traceId: scheduler!.traceId, spanId: scheduler!.spanId }),
      ]);
      const publish = kept.spans.find((s) => s.name === `publish ${fired}`)!;
      expect(publish.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(publish.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    } finally {
      await timers.stop();
    }
  });
});
