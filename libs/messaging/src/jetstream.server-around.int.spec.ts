import { AsyncLocalStorage } from 'node:async_hooks';
import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { IsString } from 'class-validator';
import { envelope } from '@dirigent/contracts';
import { uid, waitFor } from '@dirigent/testing';
import { type EventOptions, type Messaging, type RequestOptions } from '.';
import { startProbeApp, testStream, type ProbeApp } from '../testing/test-fixtures';

/** The server's `around` wrapper and the handlers that opt out of it (`around: false`). */
class Probe {
  @IsString() name: string;
}

const test = testStream('around');
const { stream, prefix } = test;
const consumer = (name: string): EventOptions => ({
  stream,
  durable: uid(name),
  maxDeliver: 3,
  ackWaitMs: 5000,
});
const wrappedEvents = consumer('wrapped');
const bareEvents = consumer('bare');

const wrapper = new AsyncLocalStorage<string>();
/** Calls of the wrapper, and what each handler saw of it, by probe name. */
let wrapperCalls = 0;
const seen = new Map<string, string | undefined>();
const record = (p: Probe) => {
  seen.set(p.name, wrapper.getStore());
  return { name: p.name };
};

@Controller()
class AroundHandlers {
  @MessagePattern(`rpc.${prefix}.wrapped`)
  wrappedRequest(@Payload() p: Probe) {
    return record(p);
  }

  @MessagePattern(`rpc.${prefix}.bare`, { around: false } satisfies RequestOptions)
  bareRequest(@Payload() p: Probe) {
    return record(p);
  }

  @EventPattern(`${prefix}.wrapped`, wrappedEvents)
  wrappedEvent(@Payload() p: Probe) {
    record(p);
  }

  @EventPattern(`${prefix}.bare`, { ...bareEvents, around: false } satisfies EventOptions)
  bareEvent(@Payload() p: Probe) {
    record(p);
  }
}

describe('JetStreamServer: the around wrapper', () => {
  let probe: ProbeApp;
  let m: Messaging;
  const drained = (durable: string) =>
    waitFor(
      async () => {
        const info = await m.client.jsm.consumers.info(stream, durable);
        return info.num_ack_pending === 0 && info.num_pending === 0;
      },
      10_000,
      20,
      `${durable} acked`,
    );

  beforeAll(async () => {
    probe = await startProbeApp('jetstream-around-test', test, [AroundHandlers], {
      around: (fn) => {
        wrapperCalls++;
        return wrapper.run('inside', fn);
      },
    });
    m = probe.m;
  });
  afterAll(() => probe?.close());

  it('runs requests inside the wrapper unless they say around: false', async () => {
    const before = wrapperCalls;
    const wrapped = await m.request(`rpc.${prefix}.wrapped`, { name: 'rpc-wrapped' });
    const bare = await m.request(`rpc.${prefix}.bare`, { name: 'rpc-bare' });
    expect(wrapped).toMatchObject({ ok: true, data: { name: 'rpc-wrapped' } });
    expect(bare).toMatchObject({ ok: true, data: { name: 'rpc-bare' } });
    expect(seen.get('rpc-wrapped')).toBe('inside');
    expect(seen.has('rpc-bare')).toBe(true);
    expect(seen.get('rpc-bare')).toBeUndefined();
    expect(wrapperCalls - before).toBe(1);
  });

  it('runs deliveries inside the wrapper unless the consumer says around: false, and acks both', async () => {
    const before = wrapperCalls;
    await m.publish(`${prefix}.wrapped`, envelope('probe', 'test', { name: 'event-wrapped' }));
    await m.publish(`${prefix}.bare`, envelope('probe', 'test', { name: 'event-bare' }));
    await waitFor(() => seen.has('event-wrapped') && seen.has('event-bare'), 10_000, 20, 'both');
    await drained(wrappedEvents.durable);
    await drained(bareEvents.durable);
    expect(seen.get('event-wrapped')).toBe('inside');
    expect(seen.get('event-bare')).toBeUndefined();
    expect(wrapperCalls - before).toBe(1);
  });
});
