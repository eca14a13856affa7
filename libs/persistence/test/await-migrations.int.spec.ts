import { testDatabaseUrl, waitFor } from '@dirigent/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../testing/src/private-services';
import { awaitMigrations, pendingMigrations } from '../src/await-migrations';
import { migrate } from '../src/migrate';
import { migrationsList } from '../src/migrations';

/** The init containers of deploy/k8s wait with this until the migration Job is done. */
describe('awaitMigrations', () => {
  let db: ScratchDatabase;
  beforeEach(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
  });
  afterEach(async () => {
    await db.drop();
  });

  it('sees every migration pending in an empty database, none once migrated', async () => {
    expect(await pendingMigrations(db.url)).toEqual(migrationsList.map((m) => m.name));
    await migrate(db.url);
    expect(await pendingMigrations(db.url)).toEqual([]);
  });

  it('waits while migrations are pending and returns once they are applied', async () => {
    const waits: string[] = [];
    let done = false;
    const waiting = awaitMigrations(db.url, {
      timeoutMs: 120_000,
      intervalMs: 50,
      onWait: (why) => waits.push(why),
    }).then(() => (done = true));
    await waitFor(() => waits.length >= 2, 30_000, 25, 'the waiter to look twice');
    expect(done).toBe(false);
    expect(waits[0]).toContain(`pending: ${migrationsList[0].name}`);
    await migrate(db.url);
    await waiting;
    expect(done).toBe(true);
  });

  it('gives up with the reason when the time is over', async () => {
    await expect(awaitMigrations(db.url, { timeoutMs: 200, intervalMs: 50 })).rejects.toThrow(
      /migrations not applied after .* \(pending: Migration/,
    );
    const nowhere = new URL(db.url);
    nowhere.port = '1';
    await expect(
      awaitMigrations(nowhere.toString(), { timeoutMs: 200, intervalMs: 50 }),
    ).rejects.toThrow(/database not readable/);
  });
});
