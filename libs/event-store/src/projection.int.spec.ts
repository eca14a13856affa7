import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Streams, subject as subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { ormConfig } from '@dirigent/persistence';
import { closeMessaging, testDatabaseUrl, testMessaging, uid } from '@dirigent/testing';
import {
  applyBatch,
  checkpointFor,
  EventStore,
  StreamRecreatedError,
  ProjectionRunner,
  type Projection,
  type ProjectionCommit,
} from '.';

type Counted = { type: 'Counted'; data: { n: number } };

/** A projection counting how often each event was applied, in `es_fixture_applied`. */
function counting(
  name: string,
  filterSubject: string,
  before?: (commits: readonly ProjectionCommit<Counted>[]) => void | Promise<void>,
): Projection<Counted> {
  return {
    name,
    filterSubject,
    async apply(em, commits) {
      const rows = commits.flatMap((c) =>
        c.envelope.data.events.map((e) => [name, `${c.subject}#${e.data.n}`, c.seq]),
      );
      await em.getConnection().execute(
        `insert into es_fixture_applied (projection, event_key, seq, applied)
         values ${rows.map(() => '(?, ?, ?, 1)').join(', ')}
         on conflict (projection, event_key) do update set applied = es_fixture_applied.applied + 1`,
        rows.flat(),
        'run',
        em.getTransactionContext(),
      );
      await before?.(commits);
    },
  };
}

/** Commits of one `Counted` event each at the given sequences, as a runner hands them over. */
const commits = (...seqs: number[]) =>
  seqs.map(
    (seq) =>
      ({
        subject: 'es.fixture.batch',
        seq,
        envelope: { data: { events: [{ type: 'Counted', data: { n: seq } }] } },
      }) as unknown as ProjectionCommit<Counted>,
  );

describe('ProjectionRunner against the real JetStream and Postgres', () => {
  let messaging: Messaging;
  let orm: MikroORM;
  let store: EventStore;

  beforeAll(async () => {
    messaging = await testMessaging('projection-runner-test');
    store = new EventStore(messaging);
    orm = await MikroORM.init(ormConfig(testDatabaseUrl()));
    await orm.em.getConnection().execute(`create table if not exists es_fixture_applied (
      projection text not null, event_key text not null, seq bigint not null, applied int not null,
      primary key (projection, event_key))`);
  });
  afterAll(async () => {
    await closeMessaging(messaging);
    await orm.close(true);
  });

  /** `aggregates` × `commits` commits of one event each; returns the family's filter and last seq. */
  async function backlog(aggregates: number, commits: number) {
    const family = uid('proj').replace(/-/g, '_');
    let last = 0;
    await Promise.all(
      Array.from({ length: aggregates }, async (_, a) => {
        let version = 0;
        for (let i = 0; i < commits; i++) {
          version = await store.append<Counted>(
            subjects.aggregate(family, `a${a}`),
            [{ type: 'Counted', data: { n: i } }],
            version,
          );
        }
        last = Math.max(last, version);
      }),
    );
    return { family, name: `projection-${family}`, filter: subjects.aggregate(family, '>'), last };
  }

  const applied = async (name: string) =>
    (await orm.em
      .fork()
      .getConnection()
      .execute(
        `select count(*)::int as n, coalesce(max(applied), 0)::int as most
         from es_fixture_applied where projection = ?`,
        [name],
      )) as { n: number; most: number }[];

  const checkpoint = async (name: string) =>
    Number(
      (
        await orm.em
          .fork()
          .getConnection()
          .execute(`select last_seq from projection_checkpoint where name = ?`, [name])
      )[0]?.last_seq ?? 0,
    );

  it('catches up with a backlog of 5,000 commits in batches, then applies new commits live', async () => {
    const { family, name, filter, last } = await backlog(50, 100);
    const batches: number[] = [];
    const runner = new ProjectionRunner(messaging, orm.em, counting(name, filter), {
      onApplied: (c) => batches.push(c.length),
    });
    const started = Date.now();
    await runner.start();
    try {
      expect(await runner.reached(last, 30_000)).toBe(true);
      const seconds = (Date.now() - started) / 1000;
      expect(await applied(name)).toEqual([{ n: 5000, most: 1 }]);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(5000);
      expect(batches.length).toBeLessThan(100);
      expect(5000 / seconds).toBeGreaterThan(500);

      const a0 = subjects.aggregate(family, 'a0');
      const next = await store.append<Counted>(
        a0,
        [{ type: 'Counted', data: { n: 100 } }],
        await store.version(a0),
      );
      expect(await runner.reached(next, 10_000)).toBe(true);
      expect(await checkpoint(name)).toBe(next);
      expect(await applied(name)).toEqual([{ n: 5001, most: 1 }]);
    } finally {
      await runner.stop();
    }
  });

  it('applies commits arriving one by one at the tail together; a waiting reader has them at once', async () => {
    const family = uid('linger').replace(/-/g, '_');
    const name = `projection-${family}`;
    const a0 = subjects.aggregate(family, 'a0');
    const batches: number[] = [];
    const runner = new ProjectionRunner(
      messaging,
      orm.em,
      counting(name, subjects.aggregate(family, '>')),
      { lingerMs: 60_000, onApplied: (c) => batches.push(c.length) },
    );
    await runner.start();
    try {
      let version = await store.append<Counted>(a0, [{ type: 'Counted', data: { n: 0 } }], 0);
      expect(await runner.reached(version, 10_000)).toBe(true);
      expect(batches).toEqual([1]);
      for (let i = 1; i < 20; i++) {
        version = await store.append<Counted>(a0, [{ type: 'Counted', data: { n: i } }], version);
      }
      // Nobody waits: the 19 commits wait for the next batch (a minute away here).
      expect(batches).toEqual([1]);
      // A reader waits for the last one: what is at hand is applied now, not after the linger.
      expect(await runner.reached(version, 10_000)).toBe(true);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(20);
      expect(await applied(name)).toEqual([{ n: 20, most: 1 }]);
    } finally {
      await runner.stop();
    }
  });

  it('never applies a commit twice with two runners on one projection', async () => {
    const { name, filter, last } = await backlog(10, 60);
    const a = new ProjectionRunner(messaging, orm.em, counting(name, filter), { batchSize: 37 });
    const b = new ProjectionRunner(messaging, orm.em, counting(name, filter), { batchSize: 50 });
    await Promise.all([a.start(), b.start()]);
    try {
      expect(await Promise.all([a.reached(last, 30_000), b.reached(last, 30_000)])).toEqual([
        true,
        true,
      ]);
      expect(await applied(name)).toEqual([{ n: 600, most: 1 }]);
      expect(await checkpoint(name)).toBe(last);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('applies each commit once when a batch fails after writing some rows, resuming from the checkpoint', async () => {
    const { name, filter, last } = await backlog(3, 20);
    let failed = false;
    const projection = counting(name, filter, (commits) => {
      // The rows of this batch are written; the transaction then fails, as in a crash.
      if (!failed && commits.length > 1) {
        failed = true;
        throw new Error('crash inside the batch');
      }
    });
    const errors: object[] = [];
    const log = { warn: () => undefined, error: (o: object) => errors.push(o) };
    const runner = new ProjectionRunner(messaging, orm.em, projection, { batchSize: 25, log });
    await runner.start();
    try {
      expect(await runner.reached(last, 30_000)).toBe(true);
      expect(failed).toBe(true);
      expect(errors).toEqual([{ projection: name, err: 'crash inside the batch' }]);
      expect(await applied(name)).toEqual([{ n: 60, most: 1 }]);
    } finally {
      await runner.stop();
    }
  });

  it('says so when a batch takes long (the read model is held still meanwhile)', async () => {
    const { name, filter, last } = await backlog(1, 3);
    const projection = counting(name, filter, () => new Promise<void>((r) => setTimeout(r, 400)));
    const errors: string[] = [];
    const log = { warn: () => undefined, error: (_: object, msg?: string) => errors.push(msg!) };
    const runner = new ProjectionRunner(messaging, orm.em, projection, { log, slowBatchMs: 100 });
    await runner.start();
    try {
      expect(await runner.reached(last, 30_000)).toBe(true);
      expect(errors).toContain('projection batch still running after 100 ms');
    } finally {
      await runner.stop();
    }
  });

  it('opens a new consumer from the checkpoint when its consumer is lost, and says so', async () => {
    const { family, name, filter, last } = await backlog(1, 5);
    const warnings: string[] = [];
    const log = { warn: (_: object, msg?: string) => warnings.push(msg!), error: () => undefined };
    const runner = new ProjectionRunner(messaging, orm.em, counting(name, filter), { log });
    await runner.start();
    try {
      expect(await runner.reached(last, 30_000)).toBe(true);
      const jsm = messaging.client.jsm;
      for await (const c of jsm.consumers.list(Streams.eventStore)) {
        if (c.config.filter_subject === filter)
          await jsm.consumers.delete(Streams.eventStore, c.name);
      }
      const next = await store.append<Counted>(
        subjects.aggregate(family, 'a0'),
        [{ type: 'Counted', data: { n: 5 } }],
        last,
      );
      expect(await runner.reached(next, 30_000)).toBe(true);
      expect(warnings).toContain('projection consumer lost; resuming from the checkpoint');
      expect(await applied(name)).toEqual([{ n: 6, most: 1 }]);
    } finally {
      await runner.stop();
    }
  });

  it('applyBatch creates a missing checkpoint, holds its lock, and applies only commits past it', async () => {
    const name = `projection-${uid('batch')}`;
    const p = counting(name, 'unused.>');
    // Two at once on a checkpoint that does not exist yet: one applies, the other sees it.
    const results = await Promise.all([
      applyBatch(orm.em, p, commits(1, 2, 3)),
      applyBatch(orm.em, p, commits(1, 2, 3)),
    ]);
    expect(results.map((r) => r.checkpoint)).toEqual([3, 3]);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, 3]);
    const next = await applyBatch(orm.em, p, commits(2, 3, 4, 5));
    expect(next.checkpoint).toBe(5);
    expect(next.applied.map((c) => c.seq)).toEqual([4, 5]);
    expect(await checkpoint(name)).toBe(5);
    expect(await applied(name)).toEqual([{ n: 5, most: 1 }]);
  });

  it('rebuilds from a recreated stream: another creation time, or a checkpoint past its end', async () => {
    const name = `projection-${uid('recreated')}`;
    let resets = 0;
    const p = {
      ...counting(name, 'unused.>'),
      async reset(em: EntityManager) {
        resets++;
        await em
          .getConnection()
          .execute(
            'delete from es_fixture_applied where projection = ?',
            [name],
            'run',
            em.getTransactionContext(),
          );
      },
    };
    const old = { created: '2026-01-01T00:00:00.000000001Z', lastSeq: 3 };
    expect(await checkpointFor(orm.em, p, old)).toMatchObject({ position: 0, reset: false });
    await applyBatch(orm.em, p, commits(1, 2, 3), old.created);
    expect(await checkpointFor(orm.em, p, old)).toMatchObject({ position: 3, reset: false });

    // The stream created again: emptied and read from 1, whatever its new length.
    const fresh = { created: '2026-01-02T00:00:00.000000001Z', lastSeq: 7 };
    expect(await checkpointFor(orm.em, p, fresh)).toMatchObject({
      position: 0,
      reset: true,
      was: { lastSeq: 3, created: old.created },
    });
    expect(resets).toBe(1);
    expect(await applied(name)).toEqual([{ n: 0, most: 0 }]);
    // A batch still read from the old stream is refused, not applied over the new one.
    await expect(applyBatch(orm.em, p, commits(1, 2), old.created)).rejects.toBeInstanceOf(
      StreamRecreatedError,
    );
    await applyBatch(orm.em, p, commits(1, 2), fresh.created);
    expect(await checkpoint(name)).toBe(2);

    // A checkpoint written before creation times were kept: past the stream's end = recreated.
    await orm.em
      .getConnection()
      .execute('update projection_checkpoint set stream_created = null where name = ?', [name]);
    expect(await checkpointFor(orm.em, p, { ...fresh, lastSeq: 1 })).toMatchObject({
      position: 0,
      reset: true,
    });
    await orm.em
      .getConnection()
      .execute(
        'update projection_checkpoint set stream_created = null, last_seq = 1 where name = ?',
        [name],
      );
    expect(await checkpointFor(orm.em, p, fresh)).toMatchObject({ position: 1, reset: false });
    expect(resets).toBe(2);
  });

  it('starts from the checkpoint: commits at or below it are not applied again', async () => {
    const { name, filter, last } = await backlog(1, 10);
    const first = new ProjectionRunner(messaging, orm.em, counting(name, filter));
    await first.start();
    expect(await first.reached(last, 10_000)).toBe(true);
    await first.stop();
    const again = new ProjectionRunner(messaging, orm.em, counting(name, filter));
    await again.start();
    try {
      expect(again.position).toBe(last);
      expect(await applied(name)).toEqual([{ n: 10, most: 1 }]);
    } finally {
      await again.stop();
    }
  });
});
