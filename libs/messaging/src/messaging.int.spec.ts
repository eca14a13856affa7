import { IsInt, IsString, Min } from 'class-validator';
import { DomainError, ErrorCodes, envelope, type Reply } from '@dirigent/contracts';
import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import { ensureStream, runDurableConsumer, type Messaging } from '.';

class AddRequest {
  @IsInt() @Min(0) a: number;
  @IsInt() @Min(0) b: number;
}
class Job {
  @IsString() name: string;
}

describe('Messaging against the real NATS', () => {
  let m: Messaging;
  const stream = `TEST_${uid('msg').replace(/-/g, '_').toUpperCase()}`;
  const prefix = `test.${stream.toLowerCase()}`;

  beforeAll(async () => {
    m = await testMessaging('messaging-test');
    await ensureStream(m.client.jsm, {
      name: stream as never,
      subjects: [`${prefix}.>`],
      retention: 'limits',
      duplicateWindowMs: 60_000,
    });
  });
  afterAll(async () => {
    await m.client.jsm.streams.delete(stream).catch(() => undefined);
    await closeMessaging(m);
  });

  describe('request/reply', () => {
    const subject = () => `rpc-${prefix}.add`;
    beforeAll(() => {
      m.serve(subject(), {
        payload: AddRequest,
        handler: async ({ a, b }) => {
          if (a === 13) throw new DomainError(ErrorCodes.FORBIDDEN, 'unlucky');
          if (a === 666) throw new Error('boom with secret sk-live-123');
          // More than the server's max_payload (1 MB by default).
          if (a === 999) return { blob: 'x'.repeat(2 * 1024 * 1024) };
          return { sum: a + b };
        },
      });
    });

    it('answers valid input with ok:true', async () => {
      await expect(m.request(subject(), { a: 2, b: 3 })).resolves.toEqual({
        ok: true,
        data: { sum: 5 },
      });
    });

    it('answers malformed input with BAD_REQUEST and the field errors, and stays up', async () => {
      const bad = (await m.request(subject(), { a: 'two', c: 1 })) as Reply<never> & { ok: false };
      expect(bad.ok).toBe(false);
      expect(bad.error.code).toBe(ErrorCodes.BAD_REQUEST);
      const fields = (bad.error.details as { field: string }[]).map((d) => d.field).sort();
      // `c` is unknown: stripped, not refused (the contract grows additively).
      expect(fields).toEqual(['a', 'b']);

      const raw = await m.client.nc.request(subject(), 'not json{', { timeout: 2000 });
      expect(raw.json<Reply<never>>()).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      const arr = await m.client.nc.request(subject(), '[1,2]', { timeout: 2000 });
      expect(arr.json<Reply<never>>()).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });

      await expect(m.request(subject(), { a: 1, b: 1 })).resolves.toEqual({
        ok: true,
        data: { sum: 2 },
      });
    });

    it('maps a DomainError to its code and hides other errors behind INTERNAL', async () => {
      await expect(m.request(subject(), { a: 13, b: 0 })).resolves.toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN', message: 'unlucky' },
      });
      const internal = await m.request(subject(), { a: 666, b: 0 });
      expect(internal).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
      expect(JSON.stringify(internal)).not.toContain('sk-live');
    });

    it('answers INTERNAL for a reply larger than the server takes, and stays up', async () => {
      await expect(m.request(subject(), { a: 999, b: 0 })).resolves.toMatchObject({
        ok: false,
        error: { code: 'INTERNAL' },
      });
      await expect(m.request(subject(), { a: 1, b: 2 })).resolves.toEqual({
        ok: true,
        data: { sum: 3 },
      });
    });

    it('says UNAVAILABLE when nobody serves the subject', async () => {
      await expect(m.request(`rpc-${prefix}.nobody`, {}, 500)).resolves.toMatchObject({
        ok: false,
        error: { code: 'UNAVAILABLE' },
      });
    });
  });

  describe('durable consumers', () => {
    it('redelivers after a throw, then succeeds', async () => {
      const subject = `${prefix}.flaky`;
      const attempts: number[] = [];
      const c = await m.consume<Job>({
        stream,
        durable: uid('flaky'),
        filterSubject: subject,
        maxDeliver: 5,
        ackWaitMs: 5000,
        backoffMs: [50],
        payload: Job,
        handler: async (_d, _e, msg) => {
          attempts.push(msg.info.deliveryCount);
          if (msg.info.deliveryCount < 3) throw new Error('transient');
        },
      });
      await m.publish(subject, envelope('job', 'test', { name: 'x' }));
      await waitFor(() => attempts.length === 3, 10_000, 25, 'three deliveries');
      await new Promise((r) => setTimeout(r, 300));
      expect(attempts).toEqual([1, 2, 3]);
      await c.stop();
    });

    it('dead-letters after max deliveries, visibly, and goes on with the next message', async () => {
      const subject = `${prefix}.poison`;
      const durable = uid('poison');
      const handled: string[] = [];
      let poisonAttempts = 0;
      const c = await m.consume<Job>({
        stream,
        durable,
        filterSubject: subject,
        maxDeliver: 3,
        ackWaitMs: 5000,
        backoffMs: [20],
        payload: Job,
        handler: async (d) => {
          if (d.name === 'poison') {
            poisonAttempts++;
            throw new Error('cannot handle poison');
          }
          handled.push(d.name);
        },
      });
      await m.publish(subject, envelope('job', 'test', { name: 'poison' }));
      await m.publish(subject, envelope('job', 'test', { name: 'fine' }));
      // An invalid payload is dead-lettered at once: no redelivery can fix it.
      await m.publish(subject, envelope('job', 'test', { nom: 'typo' }));

      const letters = await waitFor(
        async () => {
          const all = (await m.listDeadLetters(200)).filter((d) => d.durable === durable);
          return all.length === 2 ? all : undefined;
        },
        15_000,
        100,
        'two dead letters',
      );
      expect(handled).toEqual(['fine']);
      expect(poisonAttempts).toBe(3);
      const poison = letters.find((l) => l.payload.includes('"poison"'))!;
      expect(poison).toMatchObject({
        stream,
        subject,
        deliveries: 3,
        error: 'cannot handle poison',
      });
      const typo = letters.find((l) => l.payload.includes('typo'))!;
      expect(typo.deliveries).toBe(1);
      expect(typo.error).toMatch(/invalid payload:.*name must be a string/);
      // Nothing is left in flight: the poison was terminated, the others acked.
      await waitFor(
        async () => {
          const info = await m.client.jsm.consumers.info(stream, durable);
          return info.num_ack_pending === 0 && info.num_pending === 0;
        },
        5000,
        50,
        'consumer to settle',
      );
      await c.stop();
    });

    it('acknowledges skipped deliveries without handling them, even unreadable ones', async () => {
      const durable = uid('skipping');
      const handled: string[] = [];
      const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
      const c = await runDurableConsumer(
        m.client,
        'messaging-test',
        { stream, durable, filterSubject: `${prefix}.part.*`, maxDeliver: 2, ackWaitMs: 5000 },
        async (env) => {
          handled.push((env.data as { name: string }).name);
        },
        quiet,
        (msg) => msg.subject.endsWith('.other'),
      );
      for (let i = 0; i < 5; i++) {
        await m.publish(`${prefix}.part.mine`, envelope('job', 'test', { name: `mine-${i}` }));
        await m.publish(`${prefix}.part.other`, envelope('job', 'test', { name: `other-${i}` }));
      }
      // Not an envelope: skipped before it is read, so it is neither handled nor dead-lettered.
      await m.client.js.publish(`${prefix}.part.other`, 'not json{');
      await waitFor(
        async () => {
          const info = await m.client.jsm.consumers.info(stream, durable);
          return info.num_ack_pending === 0 && info.num_pending === 0 && handled.length === 5;
        },
        10_000,
        50,
        'every delivery acknowledged',
      );
      expect(handled).toEqual([0, 1, 2, 3, 4].map((i) => `mine-${i}`));
      expect((await m.listDeadLetters(200)).filter((d) => d.durable === durable)).toEqual([]);
      await c.stop();
    });

    it('keeps deliveries waiting behind a slow handler from being redelivered', async () => {
      const durable = uid('queued');
      const seen: { name: string; delivery: number }[] = [];
      let release!: () => void;
      const slow = new Promise<void>((r) => (release = r));
      const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
      const c = await runDurableConsumer(
        m.client,
        'messaging-test',
        {
          stream,
          durable,
          filterSubject: `${prefix}.queued.*`,
          maxDeliver: 5,
          ackWaitMs: 1000,
          workingEveryMs: 300,
          maxAckPending: 20,
        },
        async (env, msg) => {
          const name = (env.data as { name: string }).name;
          seen.push({ name, delivery: msg.info.deliveryCount });
          if (name === 'job-0') await slow;
        },
        quiet,
      );
      for (let i = 0; i < 6; i++) {
        await m.publish(`${prefix}.queued.x`, envelope('job', 'test', { name: `job-${i}` }));
      }
      // The one slot is busy for three ack waits while five deliveries wait for it.
      await waitFor(async () => seen.length === 1, 5000, 20, 'job-0 started');
      await new Promise((r) => setTimeout(r, 3000));
      release();
      await waitFor(
        async () => {
          const info = await m.client.jsm.consumers.info(stream, durable);
          return info.num_ack_pending === 0 && seen.length >= 6;
        },
        10_000,
        50,
        'every delivery acknowledged',
      );
      expect(seen).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ name: `job-${i}`, delivery: 1 })));
      const info = await m.client.jsm.consumers.info(stream, durable);
      expect(info.num_redelivered).toBe(0);
      await c.stop();
    });

    it('starts deliveries a slice at a time with sliceMs, every one handled and acked', async () => {
      const durable = uid('sliced');
      const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
      for (let i = 0; i < 100; i++) {
        await m.publish(`${prefix}.sliced.x`, envelope('job', 'test', { name: `job-${i}` }));
      }
      // Turns of the event loop, counted by an immediate that schedules the next.
      let turn = 0;
      let counting = true;
      const count = () => {
        turn++;
        if (counting) setImmediate(count);
      };
      setImmediate(count);
      const startedIn: number[] = [];
      const c = await runDurableConsumer(
        m.client,
        'messaging-test',
        {
          stream,
          durable,
          filterSubject: `${prefix}.sliced.*`,
          maxDeliver: 2,
          ackWaitMs: 5000,
          concurrency: 200,
          // Every delivery past the first of a turn waits for the next turn.
          sliceMs: 0,
        },
        async () => {
          startedIn.push(turn);
          await new Promise((resolve) => setTimeout(resolve, 20));
        },
        quiet,
      );
      await waitFor(
        async () => {
          const info = await m.client.jsm.consumers.info(stream, durable);
          return info.num_ack_pending === 0 && info.num_pending === 0 && startedIn.length === 100;
        },
        10_000,
        50,
        'every delivery acknowledged',
      );
      counting = false;
      // All 100 were in hand at once (the handlers wait 20 ms), yet no two started in one turn.
      expect(new Set(startedIn).size).toBe(100);
      await c.stop();
    });

    it('stops without waiting for ever on a stuck handler; its delivery comes back', async () => {
      const durable = uid('stuck');
      const spec = {
        stream,
        durable,
        filterSubject: `${prefix}.stuck.*`,
        maxDeliver: 5,
        ackWaitMs: 1000,
        stopGraceMs: 300,
      };
      const warnings: string[] = [];
      const log = {
        info: () => undefined,
        warn: (_: object, msg?: string) => warnings.push(msg ?? ''),
        error: () => undefined,
      };
      const holder = (record: number[], settle: boolean) =>
        runDurableConsumer(
          m.client,
          'messaging-test',
          spec,
          async (_env, msg) => {
            record.push(msg.info.deliveryCount);
            if (!settle) await new Promise(() => undefined);
          },
          log,
        );
      const seen: number[] = [];
      const first = await holder(seen, false);
      await m.publish(`${prefix}.stuck.x`, envelope('job', 'test', { name: 'stuck' }));
      await waitFor(async () => seen.length === 1, 5000, 20, 'the first delivery');
      await first.stop();
      expect(warnings.some((w) => w.includes('stop grace'))).toBe(true);

      const again: number[] = [];
      const second = await holder(again, true);
      await waitFor(async () => again.length === 1, 10_000, 20, 'the delivery back');
      expect(again).toEqual([2]);
      await second.stop();
    });

    it('carries W3C trace context from publisher to handler', async () => {
      const subject = `${prefix}.traced`;
      let seen: string | undefined;
      const c = await m.consume<Job>({
        stream,
        durable: uid('traced'),
        filterSubject: subject,
        maxDeliver: 2,
        ackWaitMs: 5000,
        handler: async (_d, _e, msg) => {
          seen = msg.headers?.get('traceparent');
        },
      });
      await m.publish(subject, envelope('job', 'test', { name: 't' }));
      await waitFor(() => seen, 5000);
      expect(seen).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await c.stop();
    });
  });
});
