import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config';
import { migrationsList } from './migrations';

const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/**
 * The migrations of this build that the database has not applied yet, in order. Reads the
 * migrations table only (no DDL, unlike the migrator), so it can run beside `migrate`.
 */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const orm = await MikroORM.init(ormConfig(databaseUrl));
  try {
    const conn = orm.em.getConnection();
    const [{ present }] = await conn.execute<{ present: boolean }[]>(
      `select to_regclass(?) is not null as present`,
      [MIGRATIONS_TABLE],
    );
    const applied = new Set<string>();
    if (present) {
      const rows = await conn.execute<{ name: string }[]>(`select name from ${MIGRATIONS_TABLE}`);
      for (const r of rows) applied.add(r.name.replace(/\.[jt]s$/, ''));
    }
    return migrationsList.map((m) => m.name).filter((n) => !applied.has(n));
  } finally {
    await orm.close(true);
  }
}

export interface AwaitMigrationsOptions {
  /** Give up after this long (default 10 min). */
  timeoutMs?: number;
  /** Time between two looks (default 2 s). */
  intervalMs?: number;
  /** Told what is still pending, or why the database could not be read, before each wait. */
  onWait?: (why: string) => void;
}

/**
 * Resolves once every migration of this build is applied; rejects after `timeoutMs`.
 * An init container of each Deployment in deploy/k8s runs it, so the services start only
 * after the migration Job has done its work (and never run a schema older than their code).
 */
export async function awaitMigrations(
  databaseUrl: string,
  { timeoutMs = 600_000, intervalMs = 2_000, onWait }: AwaitMigrationsOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let why: string;
    try {
      const pending = await pendingMigrations(databaseUrl);
      if (pending.length === 0) return;
      why = `pending: ${pending.join(', ')}`;
    } catch (e) {
      why = `database not readable: ${(e as Error).message}`;
    }
    if (Date.now() >= deadline) {
      throw new Error(`migrations not applied after ${Math.round(timeoutMs / 1000)} s (${why})`);
    }
    onWait?.(why);
    await new Promise((r) =>
      setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))),
    );
  }
}

if (require.main === module) {
  const url = process.env.DATABASE_URL;
  const waitS = Number(process.env.DIRIGENT_MIGRATIONS_WAIT_S ?? '600');
  if (!url) {
    console.error('config error: DATABASE_URL is required (postgres://user@host:5432/db)');
    process.exit(2);
  }
  if (!Number.isFinite(waitS) || waitS <= 0) {
    console.error('config error: DIRIGENT_MIGRATIONS_WAIT_S must be a positive number of seconds');
    process.exit(2);
  }
  awaitMigrations(url, {
    timeoutMs: waitS * 1000,
    onWait: (why) => console.log(JSON.stringify({ msg: 'waiting for migrations', why })),
  }).then(
    () => {
      console.log(JSON.stringify({ msg: 'migrations applied' }));
      process.exit(0);
    },
    (e: Error) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
