import NodeEnvironment from 'jest-environment-node';
import {
  cloneDatabase,
  startPrivateNats,
  type PrivateNats,
  type ScratchDatabase,
} from './private-services';
import { pendingWork, sharedServices, TEMPLATE_DATABASE_VAR } from './test-run';

// Only relative imports and packages here: jest loads a test environment without the
// `@dirigent/*` module mapping.

/** The variables a test file's world is published through. */
const WORLD_VARS = ['NATS_URL', 'DATABASE_URL'] as const;
type WorldVar = (typeof WORLD_VARS)[number];

/**
 * The next file's database, copied while this file runs: a copy takes a second or two on a
 * busy machine, a nats-server a fraction of that. Module state lives as long as the jest
 * process (or worker) that runs the files one after another.
 */
let spare: { template: string; db: Promise<ScratchDatabase> } | undefined;

function ownDatabase(template: string): Promise<ScratchDatabase> {
  const ready = spare?.template === template ? spare.db : cloneDatabase(template);
  const next = cloneDatabase(template);
  next.catch(() => undefined);
  pendingWork().push(next);
  spare = { template, db: next };
  return ready;
}

/**
 * Jest test environment of the int and e2e tiers: every test FILE gets a world of its own,
 * a nats-server with JetStream on a free port and an empty store, and a copy of the run's
 * migrated database (test/global-setup.ts), published through NATS_URL and DATABASE_URL.
 * A file never sees the streams, durables or rows an earlier file left, nor the machine's
 * NATS. Both variables are set in the file's sandbox and, for child processes spawned
 * without an explicit environment, in this process while the file runs (jest runs one file
 * at a time per process). Opt out with DIRIGENT_TEST_SHARED_SERVICES=1: the variables are
 * then used as given.
 */
export default class OwnServicesEnvironment extends NodeEnvironment {
  private nats?: PrivateNats;
  private db?: ScratchDatabase;
  private readonly saved: Partial<Record<WorldVar, string>> = {};

  override async setup(): Promise<void> {
    await super.setup();
    if (sharedServices()) return;
    const template = process.env[TEMPLATE_DATABASE_VAR];
    if (!template) {
      throw new Error(
        `${TEMPLATE_DATABASE_VAR} is not set: the int and e2e tiers need their global setup (test/global-setup.ts)`,
      );
    }
    const [nats, db] = await Promise.allSettled([startPrivateNats(), ownDatabase(template)]);
    if (nats.status === 'fulfilled') this.nats = nats.value;
    if (db.status === 'fulfilled') this.db = db.value;
    if (nats.status === 'rejected' || db.status === 'rejected') {
      await this.stopWorld();
      throw nats.status === 'rejected' ? nats.reason : (db as PromiseRejectedResult).reason;
    }
    const world: Record<WorldVar, string> = {
      NATS_URL: this.nats!.url,
      DATABASE_URL: this.db!.url,
    };
    const sandbox = (this.global.process as NodeJS.Process).env;
    for (const name of WORLD_VARS) {
      this.saved[name] = process.env[name];
      process.env[name] = sandbox[name] = world[name];
    }
  }

  override async teardown(): Promise<void> {
    for (const name of WORLD_VARS) {
      if (!(name in this.saved)) continue;
      if (this.saved[name] === undefined) delete process.env[name];
      else process.env[name] = this.saved[name];
    }
    await this.stopWorld();
    await super.teardown();
  }

  /**
   * Stops the nats-server; the database is dropped in the background (the global teardown
   * waits for it and drops what is left).
   */
  private async stopWorld(): Promise<void> {
    const dropped = this.db?.drop().catch(() => undefined);
    if (dropped) pendingWork().push(dropped);
    const nats = this.nats;
    this.nats = undefined;
    this.db = undefined;
    await nats?.stop();
  }
}
