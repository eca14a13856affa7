import { migrate } from '../libs/persistence/src/migrate';
import { setUpTestRun } from '../libs/testing/src/test-run';

/**
 * Integration and e2e tiers: the run's migrated database, copied for each test file with its
 * own nats-server (libs/testing/src/own-services-environment.ts).
 */
export default async function globalSetup(): Promise<void> {
  await setUpTestRun(migrate);
}
