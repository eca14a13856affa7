import { testDatabaseUrl } from './env';
import {
  createScratchDatabase,
  dropCopies,
  removeStaleTestResources,
  type ScratchDatabase,
} from './private-services';

/** Set to 1 to run against NATS_URL and DATABASE_URL as given (to inspect what tests leave). */
export const SHARED_SERVICES_VAR = 'DIRIGENT_TEST_SHARED_SERVICES';
export const sharedServices = () => process.env[SHARED_SERVICES_VAR] === '1';

/** The run's migrated database, which every test file's own database is cloned from. */
export const TEMPLATE_DATABASE_VAR = 'DIRIGENT_TEST_TEMPLATE_DATABASE_URL';

// Jest's global setup, teardown and test environments share only the process's globals,
// not module state.
const RUN = Symbol.for('dirigent.testRun');
const PENDING = Symbol.for('dirigent.testRun.pending');
const slot = globalThis as unknown as Record<symbol, ScratchDatabase | undefined>;
const pendingSlot = globalThis as unknown as Record<symbol, Promise<unknown>[] | undefined>;

/** Database work the test environments leave running, awaited by the global teardown. */
export const pendingWork = (): Promise<unknown>[] => (pendingSlot[PENDING] ??= []);

/**
 * Jest global setup of the int and e2e tiers: the run's scratch database, migrated once and
 * published through DIRIGENT_TEST_TEMPLATE_DATABASE_URL. Each test file then gets its own
 * nats-server and a copy of this database (own-services-environment.ts).
 */
export async function setUpTestRun(migrate: (databaseUrl: string) => Promise<unknown>) {
  if (sharedServices()) {
    await migrate(testDatabaseUrl());
    return;
  }
  const baseUrl = testDatabaseUrl();
  await removeStaleTestResources(baseUrl);
  const db = await createScratchDatabase(baseUrl);
  try {
    await migrate(db.url);
  } catch (e) {
    await db.drop();
    throw e;
  }
  process.env[TEMPLATE_DATABASE_VAR] = db.url;
  slot[RUN] = db;
}

/** Jest global teardown: drops the run's database and the test files' copies of it. */
export async function tearDownTestRun(): Promise<void> {
  const db = slot[RUN];
  slot[RUN] = undefined;
  delete process.env[TEMPLATE_DATABASE_VAR];
  await Promise.allSettled(pendingWork().splice(0));
  if (!db) return;
  await dropCopies(db.url);
  await db.drop();
}
