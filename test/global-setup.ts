import { MetadataStorage } from '@mikro-orm/core';
import { migrate } from '../libs/persistence/src/migrate';
import { testDatabaseUrl } from '../libs/testing/src/env';

/** Integration and e2e tiers: migrations once, against the machine's real Postgres. */
export default async function globalSetup(): Promise<void> {
  await migrate(testDatabaseUrl());
  // MikroORM keeps entity metadata in a process-wide store; with --runInBand the tests
  // run in this process but in another VM context, where objects from here misbehave.
  MetadataStorage.clear();
}
