import { tearDownTestRun } from '../libs/testing/src/test-run';

/** Stops the run's nats-server and drops its database. */
export default async function globalTeardown(): Promise<void> {
  await tearDownTestRun();
}
