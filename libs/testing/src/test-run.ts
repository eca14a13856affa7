import { testDatabaseUrl } from './env';
import {
  createScratchDatabase,
  removeStaleTestResources,
  startPrivateNats,
  type PrivateNats,
  type ScratchDatabase,
} from './private-services';

/** Set to 1 to run against NATS_URL and DATABASE_URL as given (to inspect what tests leave). */
export const SHARED_SERVICES_VAR = 'DIRIGENT_TEST_SHARED_SERVICES';
export const sharedServices = () => process.env[SHARED_SERVICES_VAR] === '1';

interface TestRun {
  nats: PrivateNats;
  db: ScratchDatabase;
}
// Jest's global setup and teardown share only the process's globals, not module state.
const RUN = Symbol.for('dirigent.testRun');
const slot = globalThis as unknown as Record<symbol, TestRun | undefined>;

/**
 * Jest global setup of the int and e2e tiers: the run's own nats-server and scratch
 * database, migrated, published through NATS_URL and DATABASE_URL. Test files (in band or
 * in workers) and the processes they spawn inherit both.
 */
export async function setUpTestRun(migrate: (databaseUrl: string) => Promise<unknown>) {
  if (sharedServices()) {
    await migrate(testDatabaseUrl());
    return;
  }
  const baseUrl = testDatabaseUrl();
  await removeStaleTestResources(baseUrl);
  const nats = await startPrivateNats();
  let db: ScratchDatabase | undefined;
  try {
    db = await createScratchDatabase(baseUrl);
    await migrate(db.url);
  } catch (e) {
    await db?.drop();
    await nats.stop();
    throw e;
  }
  process.env.NATS_URL = nats.url;
  process.env.DATABASE_URL = db.url;
  slot[RUN] = { nats, db };
}

/** Jest global teardown: stops the run's nats-server and drops its database. */
export async function tearDownTestRun(): Promise<void> {
  const run = slot[RUN];
  slot[RUN] = undefined;
  if (!run) return;
  const results = await Promise.allSettled([run.nats.stop(), run.db.drop()]);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}
