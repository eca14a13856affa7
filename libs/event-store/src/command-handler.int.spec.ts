import type { Messaging } from '@dirigent/messaging';
import { Streams, subject as subjects } from '@dirigent/contracts';
import { closeMessaging, testMessaging, uid } from '@dirigent/testing';
import { CommandHandler, EventStore } from '.';
import type { Decider } from './command-handler';
import { appendingDecider as decider } from '../testing/test-fixtures';

/** Members of a set: adding a member already in it appends nothing. */
type Member = { type: 'Added' | 'Removed'; data: { name: string } };
const members: Decider<Member, Member, { names: string[] }> = {
  initialState: () => ({ names: [] }),
  decide: (c, s) => (s.names.includes(c.data.name) === (c.type === 'Added') ? [] : [c]),
  evolve: (s, e) => ({
    names:
      e.type === 'Added' ? [...s.names, e.data.name] : s.names.filter((n) => n !== e.data.name),
  }),
};

describe('CommandHandler reads of the store', () => {
  let messaging: Messaging;
  let store: EventStore;

  beforeAll(async () => {
    messaging = await testMessaging('command-handler-test');
    store = new EventStore(messaging);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await closeMessaging(messaging);
  });

  /** An aggregate with commits 0..n-1 written by another process's handler. */
  async function written(n: number): Promise<string> {
    const subject = subjects.aggregate('handlertest', uid('a'));
    const writer = new CommandHandler(store, decider);
    for (let i = 0; i < n; i++) await writer.handle(subject, { n: i });
    return subject;
  }

  it('shares one read of a cold aggregate among the callers that ask meanwhile', async () => {
    const subject = await written(5);
    const reads = jest.spyOn(store, 'loadCommits');
    const handler = new CommandHandler(store, decider);
    const states = await Promise.all([1, 2, 3, 4].map(() => handler.state(subject)));
    expect(reads.mock.calls.filter(([s]) => s === subject)).toHaveLength(1);
    for (const s of states) expect(s.state.items).toEqual([0, 1, 2, 3, 4]);
    expect(states[0].version).toBeGreaterThan(0);
    reads.mockRestore();
  });

  it('does not hand out a read that an invalidation made stale while it ran', async () => {
    const subject = await written(2);
    const handler = new CommandHandler(store, decider);
    // The first read is held until the other process has appended and said so.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const original = store.loadCommits.bind(store);
    const reads = jest.spyOn(store, 'loadCommits').mockImplementationOnce(async (...args) => {
      await gate;
      return original(...args);
    });
    const first = handler.state(subject);
    await new CommandHandler(store, decider).handle(subject, { n: 2 });
    handler.invalidate(subject);
    const second = await handler.state(subject);
    expect(second.state.items).toEqual([0, 1, 2]);
    release();
    await first;
    // The older read finishing later does not replace the newer cached state.
    expect(handler.currentState(subject)?.items).toEqual([0, 1, 2]);
    reads.mockRestore();
  });

  it('answers a command that changes nothing only once the store agrees', async () => {
    const subject = subjects.aggregate('handlertest', uid('set'));
    const mine = new CommandHandler(store, members);
    const other = new CommandHandler(store, members);
    const add = { type: 'Added', data: { name: 'ada' } } as const;
    await mine.handle(subject, add);
    // Another replica removes her; this one has not heard of it yet.
    await other.handle(subject, { type: 'Removed', data: { name: 'ada' } });
    const again = await mine.handle(subject, add);
    expect(again.events).toEqual([add]);
    expect((await new CommandHandler(store, members).state(subject)).state.names).toEqual(['ada']);
  });

  it('writes again what a reset stream lost although memory still holds it', async () => {
    const subject = subjects.aggregate('handlertest', uid('set'));
    const handler = new CommandHandler(store, members);
    const add = { type: 'Added', data: { name: 'bo' } } as const;
    await handler.handle(subject, add);
    // The stream lost the aggregate's commits (a lost NATS store, as a purge of the subject).
    await messaging.client.jsm.streams.purge(Streams.eventStore, { filter: subject });
    expect((await handler.handle(subject, add)).events).toEqual([add]);
    expect(await store.version(subject)).toBeGreaterThan(0);
  });

  it('reads again after a failed read', async () => {
    const subject = await written(1);
    const handler = new CommandHandler(store, decider);
    const reads = jest.spyOn(store, 'loadCommits').mockRejectedValueOnce(new Error('nats down'));
    await expect(handler.state(subject)).rejects.toThrow('nats down');
    expect((await handler.state(subject)).state.items).toEqual([0]);
    reads.mockRestore();
  });
});
