import { MetadataStorage } from '@mikro-orm/core';
import { migrate } from '../libs/persistence/src/migrate';
import { setUpTestRun } from '../libs/testing/src/test-run';

/** Integration and e2e tiers: the run's own NATS and migrated database (libs/testing/src/test-run.ts). */
export default async function globalSetup(): Promise<void> {
  await setUpTestRun(migrate);
  // MikroORM keeps entity metadata in a process-wide store; with --runInBand the tests
  // run in this process but in another VM context, where objects from here misbehave.
  MetadataStorage.clear();
}
