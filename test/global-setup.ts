import { migrate } from '../libs/persistence/src/migrate';
import { testDatabaseUrl } from '../libs/testing/src/env';

/** Integration and e2e tiers: migrations once, against the machine's real Postgres. */
export default async function globalSetup(): Promise<void> {
  await migrate(testDatabaseUrl());
}
