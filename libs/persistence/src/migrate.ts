import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config';

/** Applies pending migrations. Run as a step (`npm run migrate`, a k8s Job), never at module start. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const orm = await MikroORM.init(ormConfig(databaseUrl));
  try {
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await orm.close(true);
  }
}

if (require.main === module) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error(
      'config error: DATABASE_URL is required for migrate (postgres://user@host:5432/db)',
    );
    process.exit(2);
  }
  migrate(url).then(
    (names) => {
      console.log(JSON.stringify({ msg: 'migrations applied', migrations: names }));
      process.exit(0);
    },
    (e: Error) => {
      console.error(`migration failed: ${e.message}`);
      process.exit(1);
    },
  );
}
