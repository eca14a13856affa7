import { IsInt } from 'class-validator';
import { subject as subjects } from '@dirigent/contracts';
import { EventStore } from '@dirigent/event-store';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, testMessaging, uid } from '@dirigent/testing';
import { nestEcho, rawEcho } from './anchors';
import { msSince, percentile, round, type BenchResult } from './stats';

class Ping {
  @IsInt() n: number;
}

async function timeRequests(n: number, once: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await once(i);
    out.push(msSince(t));
  }
  return out;
}

/**
 * Request/reply through the services' path (Nest, the JetStream transport, the contract's
 * validation pipe, the reply-envelope filter, the handler metrics) vs a raw @nats-io echo on
 * the same server and connection (bench/anchors.ts), both answering JSON.
 */
async function benchRpc(m: Messaging): Promise<BenchResult> {
  const nc = m.client.nc;
  const rawSubject = `bench.${uid('raw')}`;
  const libSubject = `bench.${uid('lib')}`;
  rawEcho(nc, rawSubject, (body) => ({ n: body.n }));
  const app = await nestEcho(m.client, libSubject, Ping, (p) => ({ n: p.n }));
  await nc.flush();
  const raw = (i: number) =>
    nc.request(rawSubject, JSON.stringify({ n: i }), { timeout: 5000 }).then((r) => r.json());
  const lib = (i: number) => m.request(libSubject, { n: i });
  await timeRequests(500, raw);
  await timeRequests(500, lib);
  // Interleaved rounds so that drift on the machine hits both sides alike.
  const rawT: number[] = [];
  const libT: number[] = [];
  for (let round = 0; round < 5; round++) {
    rawT.push(...(await timeRequests(1000, raw)));
    libT.push(...(await timeRequests(1000, lib)));
  }
  await app.close();
  const [r50, r99, l50, l99] = [
    percentile(rawT, 50),
    percentile(rawT, 99),
    percentile(libT, 50),
    percentile(libT, 99),
  ];
  return {
    'rpc raw @nats-io p50 (ms)': round(r50),
    'rpc raw @nats-io p99 (ms)': round(r99),
    'rpc nest transport p50 (ms)': round(l50),
    'rpc nest transport p99 (ms)': round(l99),
    'rpc nest/raw p50 ratio': round(l50 / r50, 2),
    'rpc nest/raw p99 ratio': round(l99 / r99, 2),
  };
}

/** Appends with optimistic concurrency: 32 writers on distinct aggregates. */
async function benchAppend(m: Messaging): Promise<BenchResult> {
  const store = new EventStore(m);
  const family = uid('bench').replace(/-/g, '_');
  const writers = 32;
  const perWriter = 150;
  const latencies: number[] = [];
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const subject = subjects.aggregate(family, `a${w}`);
      let version = 0;
      for (let i = 0; i < perWriter; i++) {
        const t = process.hrtime.bigint();
        version = await store.append(subject, [{ type: 'Benchmarked', data: { i } }], version);
        latencies.push(msSince(t));
      }
    }),
  );
  const seconds = msSince(start) / 1000;
  return {
    'event-store appends': writers * perWriter,
    'event-store append throughput (events/s)': Math.round((writers * perWriter) / seconds),
    'event-store append p50 (ms)': round(percentile(latencies, 50)),
    'event-store append p99 (ms)': round(percentile(latencies, 99)),
  };
}

export async function benchFoundation(): Promise<BenchResult> {
  const m = await testMessaging('bench-foundation');
  try {
    return { ...(await benchRpc(m)), ...(await benchAppend(m)) };
  } finally {
    await closeMessaging(m);
  }
}
