import { testDatabaseUrl } from '@dirigent/testing';
import { createScratchDatabase, startPrivateNats } from '../libs/testing/src/private-services';

/** Where a bench suite's NATS and Postgres are, and how to remove what it started. */
export interface BenchStores {
  natsUrl: string;
  databaseUrl: string;
  /** Stops the nats-server and drops the database this started (none if named). */
  release(): Promise<void>;
}

/**
 * A nats-server and a scratch database of the suite's own, unless NATS_URL / DATABASE_URL
 * name them: what a suite writes (streams, durables, timers, ledger rows) would otherwise
 * stay on the machine's, where the next run or `npm start` meets it.
 */
export async function ownStores(): Promise<BenchStores> {
  const nats = process.env.NATS_URL ? undefined : await startPrivateNats();
  const db = process.env.DATABASE_URL
    ? undefined
    : await createScratchDatabase(testDatabaseUrl()).catch(async (e: unknown) => {
        await nats?.stop();
        throw e;
      });
  return {
    natsUrl: process.env.NATS_URL ?? nats!.url,
    databaseUrl: process.env.DATABASE_URL ?? db!.url,
    release: async () => {
      await nats?.stop();
      await db?.drop();
    },
  };
}
