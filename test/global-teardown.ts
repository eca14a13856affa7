import { tearDownTestRun } from '../libs/testing/src/test-run';

/** Drops the run's database and what is left of the test files' copies. */
export default async function globalTeardown(): Promise<void> {
  await tearDownTestRun();
}
