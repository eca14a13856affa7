import { subject as subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import { CommandHandler, ConcurrencyError, EventStore } from '.';

type Added = { type: 'Added'; data: { by: string } };

describe('EventStore against the real JetStream', () => {
  let messaging: Messaging;
  let store: EventStore;

  beforeAll(async () => {
    messaging = await testMessaging('event-store-test');
    store = new EventStore(messaging);
  });
  afterAll(() => closeMessaging(messaging));

  it('lets exactly one of 32 concurrent appends at the same version win; the rest retry with nothing lost or doubled', async () => {
    const subject = subjects.aggregate('test', uid('race'));
    const base = await store.append<Added>(subject, [{ type: 'Added', data: { by: 'seed' } }], 0);

    const writers = Array.from({ length: 32 }, (_, i) => `w${i}`);
    const first = await Promise.allSettled(
      writers.map((by) => store.append<Added>(subject, [{ type: 'Added', data: { by } }], base)),
    );
    const won = first.filter((r) => r.status === 'fulfilled');
    const lost = first.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(31);
    for (const r of lost) expect(r.reason).toBeInstanceOf(ConcurrencyError);

    const winner = first.findIndex((r) => r.status === 'fulfilled');
    const losers = writers.filter((_, i) => i !== winner);
    // Each loser retries as a separate process would: reload the version, append again.
    await Promise.all(
      losers.map(async (by) => {
        for (;;) {
          const version = await store.version(subject);
          try {
            await store.append<Added>(subject, [{ type: 'Added', data: { by } }], version);
            return;
          } catch (e) {
            if (!(e instanceof ConcurrencyError)) throw e;
          }
        }
      }),
    );

    const { events } = await store.load<Added>(subject);
    const authors = events.map((e) => e.data.by);
    expect(authors).toHaveLength(33);
    expect(new Set(authors).size).toBe(33);
    expect(authors[0]).toBe('seed');
  });

  it('stores a re-published commit id once', async () => {
    const subject = subjects.aggregate('test', uid('dedup'));
    const v1 = await store.append<Added>(subject, [{ type: 'Added', data: { by: 'a' } }], 0, {
      id: `${subject}:c1`,
    });
    // The same commit again (a retry after a lost ack) is a duplicate, not a conflict.
    const again = await messaging.publish(subject, {
      id: `${subject}:c1`,
      type: 'es.commit',
      v: 1,
      at: new Date().toISOString(),
      source: 'test',
      data: { events: [{ type: 'Added', data: { by: 'a' } }] },
    });
    expect(again.duplicate).toBe(true);
    expect(again.seq).toBe(v1);
    const { events, version } = await store.load<Added>(subject);
    expect(events).toHaveLength(1);
    expect(version).toBe(v1);
  });

  it('CommandHandler decides from the loaded state and retries on a conflict from another writer', async () => {
    const subject = subjects.aggregate('test', uid('counter'));
    type Cmd = { by: string };
    const decider = {
      initialState: () => ({ count: 0 }),
      decide: (c: Cmd, s: { count: number }): Added[] =>
        s.count >= 40 ? [] : [{ type: 'Added', data: { by: c.by } }],
      evolve: (s: { count: number }) => ({ count: s.count + 1 }),
    };
    const a = new CommandHandler(store, decider);
    const b = new CommandHandler(store, decider);
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => [
        a.handle(subject, { by: `a${i}` }),
        b.handle(subject, { by: `b${i}` }),
      ]).flat(),
    );
    const { events } = await store.load<Added>(subject);
    // 50 commands, but the decider refuses past 40: the cap holds across two writers.
    expect(events).toHaveLength(40);
    expect(new Set(events.map((e) => e.data.by)).size).toBe(40);
  });

  it('CommandHandler tells its current state without a read only while it is known to be current', async () => {
    const subject = subjects.aggregate('test', uid('current'));
    const decider = {
      initialState: () => ({ count: 0 }),
      decide: (c: { by: string }): Added[] => [{ type: 'Added', data: { by: c.by } }],
      evolve: (s: { count: number }) => ({ count: s.count + 1 }),
    };
    const a = new CommandHandler(store, decider);
    expect(a.currentState(subject)).toBeUndefined();
    await a.handle(subject, { by: 'a' });
    expect(a.currentState(subject)).toEqual({ count: 1 });
    // Another writer appends: once told, the state is no longer current until caught up.
    await new CommandHandler(store, decider).handle(subject, { by: 'b' });
    a.invalidate(subject);
    expect(a.currentState(subject)).toBeUndefined();
    expect((await a.state(subject)).state).toEqual({ count: 2 });
    expect(a.currentState(subject)).toEqual({ count: 2 });
  });

  it('tells a watcher about new commits and which process wrote them', async () => {
    const aggregate = uid('watched');
    const other = new EventStore(messaging);
    const seen: { by: 'store' | 'other'; seq: number; ownWrite: boolean }[] = [];
    const filter = subjects.aggregate('test', `${aggregate}.*`);
    const watches = [
      await store.watch(filter, (c) =>
        seen.push({ by: 'store', seq: c.seq, ownWrite: c.ownWrite }),
      ),
      await other.watch(filter, (c) =>
        seen.push({ by: 'other', seq: c.seq, ownWrite: c.ownWrite }),
      ),
    ];
    const seq = await store.append<Added>(
      subjects.aggregate('test', `${aggregate}.a`),
      [{ type: 'Added', data: { by: 'store' } }],
      0,
    );
    await waitFor(() => seen.length === 2, 5000, 20, 'both watchers');
    expect(seen.sort((a, b) => a.by.localeCompare(b.by))).toEqual([
      { by: 'other', seq, ownWrite: false },
      { by: 'store', seq, ownWrite: true },
    ]);
    await Promise.all(watches.map((w) => w.stop()));
  });
});
