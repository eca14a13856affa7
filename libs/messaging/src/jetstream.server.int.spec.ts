import {
  Controller,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { map } from 'rxjs';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { IsInt, IsString, Min } from 'class-validator';
import { DomainError, ErrorCodes, envelope, type Reply } from '@dirigent/contracts';
import { uid, waitFor } from '@dirigent/testing';
import {
  JetStreamContext,
  metricsRegistry,
  NatsRequestContext,
  type DurableEventOptions,
  type Messaging,
} from '.';
import { startProbeApp, testStream, type ProbeApp } from '../testing/test-fixtures';

class AddRequest {
  @IsInt() @Min(0) a: number;
  @IsInt() @Min(0) b: number;
}
class Job {
  @IsString() name: string;
}

const { stream, prefix } = testStream('nest');
const durable = uid('jobs');
const jobs: DurableEventOptions = {
  stream,
  durable,
  maxDeliver: 3,
  ackWaitMs: 5000,
  backoffMs: [50],
  concurrency: 4,
};

const seen: { name: string; delivery: number; isJob: boolean; keys: string[]; trace?: string }[] =
  [];
let gate: { opened: Promise<void>; open: () => void } | undefined;

/** A handler enhancer of its own: such a handler is served by Nest's whole call chain. */
class Wrap implements NestInterceptor {
  intercept(_ctx: ExecutionContext, next: CallHandler) {
    return next.handle().pipe(map((value: unknown) => ({ wrapped: value })));
  }
}

@Controller()
class ProbeHandlers {
  @MessagePattern(`rpc.${prefix}.later`)
  async later(@Payload() r: AddRequest) {
    await new Promise((resolve) => setImmediate(resolve));
    if (r.a === 13) throw new DomainError(ErrorCodes.FORBIDDEN, 'unlucky later');
    if (r.a === 666) throw new Error('late boom with secret sk-live-456');
    return { sum: r.a + r.b, isRequest: r instanceof AddRequest };
  }

  @MessagePattern(`rpc.${prefix}.wrapped`)
  @UseInterceptors(Wrap)
  wrapped(@Payload() r: AddRequest) {
    return { sum: r.a + r.b };
  }

  @MessagePattern(`rpc.${prefix}.field`)
  field(@Payload('a') a: unknown) {
    return { a };
  }

  /** A result JSON cannot carry. */
  @MessagePattern(`rpc.${prefix}.bigint`)
  bigint() {
    return { n: BigInt(1) };
  }

  @MessagePattern(`rpc.${prefix}.add`)
  add(@Payload() r: AddRequest, @Ctx() ctx: NatsRequestContext) {
    if (r.a === 13) throw new DomainError(ErrorCodes.FORBIDDEN, 'unlucky');
    if (r.a === 666) throw new Error('boom with secret sk-live-123');
    return { sum: r.a + r.b, keys: Object.keys(r).sort(), subject: ctx.subject };
  }

  @EventPattern(`${prefix}.job`, jobs)
  async job(@Payload() j: Job, @Ctx() ctx: JetStreamContext) {
    seen.push({
      name: j.name,
      delivery: ctx.deliveryCount,
      isJob: j instanceof Job,
      keys: Object.keys(j),
      trace: ctx.headers?.get('traceparent'),
    });
    if (j.name === 'slow') await gate!.opened;
    if (j.name === 'flaky' && ctx.deliveryCount < 3) throw new Error('transient');
    if (j.name === 'poison') throw new Error('cannot handle poison');
  }
}

describe('JetStreamServer: @nestjs/microservices over JetStream', () => {
  let probe: ProbeApp;
  let m: Messaging;
  const request = (data: unknown) => m.request<Record<string, unknown>>(`rpc.${prefix}.add`, data);
  const deliveries = (name: string) => seen.filter((s) => s.name === name);
  const letters = async () => (await m.listDeadLetters(500)).filter((d) => d.durable === durable);

  beforeAll(async () => {
    probe = await startProbeApp('jetstream-server-test', { stream, prefix }, [ProbeHandlers]);
    m = probe.m;
  });
  afterAll(() => probe?.close());

  describe('@MessagePattern (request/reply)', () => {
    it('answers with ok:true and the handler data', async () => {
      await expect(request({ a: 2, b: 3 })).resolves.toEqual({
        ok: true,
        data: { sum: 5, keys: ['a', 'b'], subject: `rpc.${prefix}.add` },
      });
    });

    it('accepts extra fields and strips them before the handler', async () => {
      const reply = await request({ a: 1, b: 1, addedLater: { x: 1 } });
      expect(reply).toEqual({
        ok: true,
        data: { sum: 2, keys: ['a', 'b'], subject: `rpc.${prefix}.add` },
      });
    });

    it('answers invalid input with BAD_REQUEST and the field errors, and stays up', async () => {
      const bad = (await request({ a: 'two' })) as Reply<never> & { ok: false };
      expect(bad.error.code).toBe(ErrorCodes.BAD_REQUEST);
      const details = bad.error.details as { field: string; messages: string[] }[];
      expect(details.map((d) => d.field).sort()).toEqual(['a', 'b']);
      expect(details.find((d) => d.field === 'a')!.messages.join()).toMatch(/integer/);

      const raw = await m.client.nc.request(`rpc.${prefix}.add`, 'not json{', { timeout: 2000 });
      expect(raw.json<Reply<never>>()).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      const arr = await m.client.nc.request(`rpc.${prefix}.add`, '[1,2]', { timeout: 2000 });
      expect(arr.json<Reply<never>>()).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      await expect(request({ a: 1, b: 2 })).resolves.toMatchObject({ ok: true });
    });

    it.each([
      ['add', 'unlucky'],
      ['later', 'unlucky later'],
    ])(
      'maps a DomainError to its code and any other error to INTERNAL without its text (%s)',
      async (name, message) => {
        const call = (data: unknown) => m.request(`rpc.${prefix}.${name}`, data);
        await expect(call({ a: 13, b: 0 })).resolves.toEqual({
          ok: false,
          error: { code: 'FORBIDDEN', message },
        });
        const internal = await call({ a: 666, b: 0 });
        expect(internal).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
        expect(JSON.stringify(internal)).not.toContain('sk-live');
      },
    );

    it('answers a handler that resolves later with the contract class, or BAD_REQUEST', async () => {
      const later = (data: unknown) => m.request(`rpc.${prefix}.later`, data);
      await expect(later({ a: 1, b: 2, extra: 1 })).resolves.toEqual({
        ok: true,
        data: { sum: 3, isRequest: true },
      });
      await expect(later({ a: -1, b: 0 })).resolves.toMatchObject({
        ok: false,
        error: { code: 'BAD_REQUEST' },
      });
    });

    it('keeps what Nest does for handlers with enhancers or parameter options of their own', async () => {
      await expect(m.request(`rpc.${prefix}.wrapped`, { a: 2, b: 2 })).resolves.toEqual({
        ok: true,
        data: { wrapped: { sum: 4 } },
      });
      await expect(m.request(`rpc.${prefix}.wrapped`, { a: 'x', b: 2 })).resolves.toMatchObject({
        ok: false,
        error: { code: 'BAD_REQUEST' },
      });
      await expect(m.request(`rpc.${prefix}.field`, { a: 7, b: 1 })).resolves.toEqual({
        ok: true,
        data: { a: 7 },
      });
    });

    it('answers INTERNAL for a result JSON cannot carry', async () => {
      await expect(m.request(`rpc.${prefix}.bigint`, {})).resolves.toMatchObject({
        ok: false,
        error: { code: 'INTERNAL' },
      });
    });

    it('measures each handler call with its outcome', async () => {
      const text = await metricsRegistry.getSingleMetricAsString(
        'dirigent_handler_duration_seconds',
      );
      const count = (outcome: string) =>
        new RegExp(
          `_count\\{kind="rpc",name="rpc\\.${prefix.replace(/\./g, '\\.')}\\.add",outcome="${outcome}"\\} (\\d+)`,
        ).exec(text)?.[1];
      expect(Number(count('ok'))).toBeGreaterThan(0);
      expect(Number(count('FORBIDDEN'))).toBe(1);
      expect(Number(count('INTERNAL'))).toBe(1);
    });
  });

  describe('@EventPattern (durable JetStream consumer)', () => {
    const publish = (data: object) => m.publish(`${prefix}.job`, envelope('job', 'test', data));

    it('acks only after the handler promise resolves', async () => {
      let open!: () => void;
      gate = { opened: new Promise<void>((r) => (open = r)), open: () => open() };
      await publish({ name: 'slow' });
      await waitFor(() => deliveries('slow').length === 1, 10_000, 20, 'slow delivery');
      const running = await m.client.jsm.consumers.info(stream, durable);
      expect(running.num_ack_pending).toBe(1);
      gate.open();
      await waitFor(
        async () => (await m.client.jsm.consumers.info(stream, durable)).num_ack_pending === 0,
        10_000,
        20,
        'ack after resolve',
      );
      expect(deliveries('slow')).toHaveLength(1);
    });

    it('hands over the contract class, strips extra fields, and carries trace context', async () => {
      await publish({ name: 'extra', futureField: true });
      await waitFor(() => deliveries('extra').length === 1, 10_000, 20, 'extra delivery');
      expect(deliveries('extra')[0]).toMatchObject({ isJob: true, keys: ['name'], delivery: 1 });
      expect(deliveries('extra')[0].trace).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await new Promise((r) => setTimeout(r, 200));
      expect(deliveries('extra')).toHaveLength(1);
      expect((await letters()).some((l) => l.payload.includes('extra'))).toBe(false);
    });

    it('naks with backoff when the handler throws, then succeeds', async () => {
      await publish({ name: 'flaky' });
      await waitFor(() => deliveries('flaky').length === 3, 10_000, 20, 'three deliveries');
      await new Promise((r) => setTimeout(r, 300));
      expect(deliveries('flaky').map((d) => d.delivery)).toEqual([1, 2, 3]);
      expect((await letters()).some((l) => l.payload.includes('flaky'))).toBe(false);
    });

    it('terms and dead-letters an invalid payload at once, and a poison message after maxDeliver', async () => {
      await publish({ nom: 'typo' });
      await publish({ name: 'poison' });
      const found = await waitFor(
        async () => {
          const all = await letters();
          return all.length >= 2 ? all : undefined;
        },
        15_000,
        100,
        'two dead letters',
      );
      const typo = found.find((l) => l.payload.includes('typo'))!;
      expect(typo.deliveries).toBe(1);
      expect(typo.error).toMatch(/name/);
      const poison = found.find((l) => l.payload.includes('poison'))!;
      expect(poison).toMatchObject({ deliveries: 3, error: 'cannot handle poison' });
      expect(deliveries('poison')).toHaveLength(3);
      await waitFor(
        async () => {
          const info = await m.client.jsm.consumers.info(stream, durable);
          return info.num_ack_pending === 0 && info.num_pending === 0;
        },
        5000,
        50,
        'nothing left in flight',
      );
    });
  });
});
