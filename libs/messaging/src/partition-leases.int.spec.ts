import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import type { Messaging } from './messaging';
import { PartitionLeases, type PartitionOwner } from './partition-leases';

const PARTITIONS = 4;
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** Records what a replica serves, as the consumers would start and stop. */
class Serving implements PartitionOwner {
  readonly now = new Set<number>();
  readonly log: string[] = [];
  constructor(private readonly name: string) {}
  async acquire(k: number): Promise<void> {
    this.now.add(k);
    this.log.push(`${this.name}+${k}`);
  }
  async release(k: number, lost?: boolean): Promise<void> {
    this.now.delete(k);
    this.log.push(`${this.name}-${k}${lost ? ' lost' : ''}`);
  }
}

/**
 * Partition leases of two replicas on the test NATS (a bucket of their own): they share the
 * partitions out, a replica that goes away hands its partitions over (stopped on its side
 * first), and one that loses NATS stops serving by itself while the other takes over.
 */
describe('PartitionLeases', () => {
  const bucket = uid('leases').replace(/[^A-Za-z0-9_-]/g, '_');
  const connections: Messaging[] = [];
  const running: PartitionLeases[] = [];

  const replica = async (name: string, owner: Serving) => {
    const m = await testMessaging(name);
    connections.push(m);
    const leases = await PartitionLeases.open(
      m,
      {
        partitions: PARTITIONS,
        replicaId: name,
        leaseMs: 900,
        bucket,
        setting: 'PARTITIONS',
        log: quiet,
      },
      owner,
    );
    running.push(leases);
    await leases.start();
    return { leases, messaging: m };
  };

  afterAll(async () => {
    for (const l of running) await l.stop().catch(() => undefined);
    const admin = await testMessaging('leases-cleanup');
    await admin.client.jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
    await closeMessaging(admin);
    for (const m of connections) await closeMessaging(m).catch(() => undefined);
  });

  it('shares the partitions, hands them over on stop and takes them when a replica loses NATS', async () => {
    const a = new Serving('a');
    const b = new Serving('b');
    const c = new Serving('c');
    const ra = await replica(`${bucket}-a`, a);
    await waitFor(() => a.now.size === PARTITIONS, 10_000, 20, 'a to serve every partition');

    const rb = await replica(`${bucket}-b`, b);
    await waitFor(() => a.now.size === 2 && b.now.size === 2, 20_000, 20, 'a and b to share');
    expect([...a.now].filter((k) => b.now.has(k))).toEqual([]);
    expect(ra.leases.owned).toEqual([...a.now].sort());

    // b stops: its partitions stop on its side, then a takes them at once.
    await rb.leases.stop();
    expect(b.now.size).toBe(0);
    await waitFor(() => a.now.size === PARTITIONS, 20_000, 20, 'a to take b’s partitions');

    // c joins and gets its share; then a loses NATS: a stops serving by itself, c takes all.
    await replica(`${bucket}-c`, c);
    await waitFor(() => c.now.size === 2 && a.now.size === 2, 20_000, 20, 'a and c to share');
    await closeMessaging(ra.messaging);
    await waitFor(() => a.now.size === 0, 20_000, 20, 'a to stop serving');
    await waitFor(() => c.now.size === PARTITIONS, 20_000, 20, 'c to take every partition');
    expect(a.log.filter((e) => e.endsWith('lost'))).toHaveLength(2);
  });
});
