import { Kvm, type KV } from '@nats-io/kv';
import { envelope, subject as subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, testMessaging, uid } from '@dirigent/testing';
import {
  COMMIT_TYPE,
  CommandHandler,
  EventStore,
  KvSnapshotStore,
  foldAggregate,
  type Snapshot,
  type SnapshotStore,
} from '.';
import { appendingDecider as decider, type Items } from '../testing/test-fixtures';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Records what each read returned. */
class Recording<S> implements SnapshotStore<S> {
  reads: (Snapshot<S> | undefined)[] = [];
  constructor(readonly inner: KvSnapshotStore<S>) {}
  async read(subject: string) {
    const s = await this.inner.read(subject);
    this.reads.push(s);
    return s;
  }
  write(subject: string, snapshot: Snapshot<S>) {
    this.inner.write(subject, snapshot);
  }
}

describe('snapshots of aggregates in a NATS KV bucket', () => {
  let messaging: Messaging;
  let store: EventStore;
  let snapshots: KvSnapshotStore<Items>;
  let kv: KV;
  const bucket = `test_snapshots_${uid('b').replace(/[^A-Za-z0-9_-]/g, '_')}`;

  beforeAll(async () => {
    messaging = await testMessaging('snapshots-test');
    store = new EventStore(messaging);
    snapshots = await KvSnapshotStore.open<Items>(messaging, { bucket, schema: 1 });
    kv = await new Kvm(messaging.client.js).open(bucket);
  });
  afterAll(async () => {
    await snapshots?.destroy();
    await closeMessaging(messaging);
  });

  /** An aggregate with `n` commits written through a handler snapshotting every 5. */
  async function aggregate(n: number) {
    const subject = subjects.aggregate('snaptest', uid('a'));
    const h = new CommandHandler(store, decider, { snapshots, snapshotEvery: 5 });
    for (const i of range(n)) await h.handle(subject, { n: i });
    await snapshots.flush();
    return subject;
  }

  it('writes a snapshot every 5 commits; a restart reads it and only the commits after it', async () => {
    const subject = await aggregate(23);
    const stored = await snapshots.read(subject);
    expect(stored?.state.items).toEqual(range(20));

    const recording = new Recording(snapshots);
    const restarted = new CommandHandler(store, decider, {
      snapshots: recording,
      snapshotEvery: 5,
    });
    const { state, version } = await restarted.state(subject);
    expect(state.items).toEqual(range(23));
    expect(version).toBe(await store.version(subject));
    expect(recording.reads).toHaveLength(1);
    expect(recording.reads[0]?.version).toBe(stored?.version);

    const folded = await foldAggregate(store, subject, decider, { snapshots });
    expect(folded).toMatchObject({ fromSnapshot: true, folded: 3, version });
    // And it goes on from there: two more commits make the next snapshot.
    for (const n of [23, 24]) await restarted.handle(subject, { n });
    await snapshots.flush();
    expect((await snapshots.read(subject))?.state.items).toEqual(range(25));
  });

  it('keeps one key per aggregate however many commits it had', async () => {
    const subjectsWritten = [await aggregate(41), await aggregate(12)];
    for (const s of subjectsWritten) {
      const entry = await kv.get(s);
      expect(entry?.revision).toBeGreaterThan(0);
    }
    const keys: string[] = [];
    for await (const k of await kv.keys(subjects.aggregate('snaptest', '>'))) keys.push(k);
    expect(keys.filter((k) => subjectsWritten.includes(k))).toHaveLength(2);
    // The bucket stores one entry per key: nothing of older snapshots is kept.
    const status = await kv.status();
    expect(status.history).toBe(1);
    expect(status.values).toBe(keys.length);
  });

  it.each([
    ['undecodable', () => '{ not json'],
    ['of another schema', (s: string) => s.replace('"schema":1', '"schema":2')],
    ['of another layout', (s: string) => s.replace('"format":1', '"format":0')],
    ['naming another commit', (s: string) => s.replace(/"commitId":"[^"]+"/, '"commitId":"other"')],
    ['ahead of the stream', (s: string) => s.replace(/"version":\d+/, '"version":999999999')],
    ['missing its state', (s: string) => s.replace(/"state":.*$/, '"state":null}')],
  ])('falls back to the full replay when the snapshot is %s', async (_what, corrupt) => {
    const subject = await aggregate(12);
    const entry = await kv.get(subject);
    // A poisoned state, so a snapshot that were wrongly used would show.
    const poisoned = entry!.string().replace(/"items":\[[^\]]*\]/, '"items":[-1]');
    await kv.put(subject, corrupt(poisoned));
    const folded = await foldAggregate(store, subject, decider, { snapshots });
    expect(folded).toMatchObject({ fromSnapshot: false, folded: 12 });
    expect(folded.state.items).toEqual(range(12));
    const restarted = new CommandHandler(store, decider, { snapshots, snapshotEvery: 5 });
    expect((await restarted.state(subject)).state.items).toEqual(range(12));
    // The full replay wrote a good snapshot over the bad one.
    await snapshots.flush();
    expect((await snapshots.read(subject))?.state.items).toEqual(range(12));
  });

  it('falls back when the snapshot names the version of another commit', async () => {
    const subject = await aggregate(10);
    const snap = (await snapshots.read(subject))!;
    await kv.put(
      subject,
      JSON.stringify({ format: 1, schema: 1, ...snap, version: snap.version - 1 }),
    );
    const folded = await foldAggregate(store, subject, decider, { snapshots });
    expect(folded).toMatchObject({ fromSnapshot: false });
    expect(folded.state.items).toEqual(range(10));
  });

  it('falls back when a commit after the snapshot does not say it follows it', async () => {
    const subject = await aggregate(10);
    // A commit as written before commits named their previous version.
    const version = await store.version(subject);
    await messaging.publish(
      subject,
      envelope(COMMIT_TYPE, 'test', { events: [{ type: 'Appended', data: { n: 10 } }] }),
      { expectLastSubjectSequence: version },
    );
    const folded = await foldAggregate(store, subject, decider, { snapshots });
    expect(folded).toMatchObject({ fromSnapshot: false, folded: 11 });
    expect(folded.state.items).toEqual(range(11));
  });

  it('folds up to a commit before the snapshot without it (a redelivered older commit)', async () => {
    const subject = await aggregate(12);
    const commits = await store.loadCommits(subject);
    const before = commits[7].seq;
    const folded = await foldAggregate(store, subject, decider, { snapshots, before });
    expect(folded).toMatchObject({ fromSnapshot: false, version: commits[6].seq });
    expect(folded.state.items).toEqual(range(7));
    const after = await foldAggregate(store, subject, decider, {
      snapshots,
      before: commits[11].seq,
    });
    expect(after).toMatchObject({ fromSnapshot: true, version: commits[10].seq });
    expect(after.state.items).toEqual(range(11));
  });
});
