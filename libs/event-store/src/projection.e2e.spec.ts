import { MikroORM } from '@mikro-orm/postgresql';
import { subject as subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { ormConfig } from '@dirigent/persistence';
import {
  closeMessaging,
  spawnNode,
  testDatabaseUrl,
  testMessaging,
  testNatsUrl,
  uid,
  waitFor,
} from '@dirigent/testing';
import { EventStore } from '.';

const WORKER = 'dist/libs/testing/src/fixtures/projection-worker.js';

describe('a projection killed between two batches', () => {
  let messaging: Messaging;
  let orm: MikroORM;

  beforeAll(async () => {
    messaging = await testMessaging('projection-test');
    orm = await MikroORM.init(ormConfig(testDatabaseUrl()));
    await orm.em.getConnection().execute(`create table if not exists es_fixture_applied (
      projection text not null, event_key text not null, seq bigint not null, applied int not null,
      primary key (projection, event_key))`);
  });
  afterAll(async () => {
    await closeMessaging(messaging);
    await orm.close(true);
  });

  it('applies each event exactly once after a SIGKILL right after a batch, and resumes at once', async () => {
    const family = uid('proj');
    const name = `projection-${family}`;
    const store = new EventStore(messaging);
    const aggregate = subjects.aggregate(family.replace(/-/g, '_'), 'a1');
    const filter = `${aggregate.split('.').slice(0, 3).join('.')}.>`;
    let version = 0;
    const seqs: number[] = [];
    for (let n = 1; n <= 6; n++) {
      // Two events per commit: both must land, once, with the commit.
      version = await store.append(
        aggregate,
        [
          { type: 'Counted', data: { n: n * 10 } },
          { type: 'Counted', data: { n: n * 10 + 1 } },
        ],
        version,
      );
      seqs.push(version);
    }
    const env = {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      PROJECTION_NAME: name,
      FILTER_SUBJECT: filter,
    };

    // Batches of three: the first batch (commits 1-3) is committed, then the process dies.
    const first = spawnNode(WORKER, { ...env, BATCH_SIZE: '3', CRASH_AFTER_SEQ: String(seqs[2]) });
    await new Promise<void>((resolve) => first.child.once('exit', () => resolve()));
    expect(first.child.signalCode).toBe('SIGKILL');
    const rowsAfterCrash = await orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from es_fixture_applied where projection = ?`, [name]);
    expect(rowsAfterCrash[0].n).toBe(6); // three commits applied, nothing read after them

    const restarted = Date.now();
    const second = spawnNode(WORKER, env);
    try {
      await second.waitForLine('ready');
      const rows = await waitFor(
        async () => {
          const r = await orm.em
            .fork()
            .getConnection()
            .execute(
              `select event_key, applied from es_fixture_applied where projection = ? order by seq, event_key`,
              [name],
            );
          return r.length === 12 ? r : undefined;
        },
        20_000,
        100,
        'all twelve events applied',
      );
      expect(rows.map((r) => Number(r.applied))).toEqual(Array(12).fill(1));
      // No acknowledgement to wait out: the new process reads on from the checkpoint.
      expect(Date.now() - restarted).toBeLessThan(10_000);
      const cp = await orm.em
        .fork()
        .getConnection()
        .execute(`select last_seq from projection_checkpoint where name = ?`, [name]);
      expect(Number(cp[0].last_seq)).toBe(seqs[5]);
    } finally {
      await second.kill();
    }
  });
});
