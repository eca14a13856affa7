import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { ProjectionCheckpoint } from './projection-checkpoint.entity';

/** Entities of every service share one database; each service lists the ones it uses. */
export const foundationEntities = [ProjectionCheckpoint];

/**
 * The ORM options of a running service: without the migrator, which a service never uses
 * (migrations run as a step: `npm run migrate`, the deployment's Job). The migrator and the migrations are about a tenth
 * of the modules a service loads, and a restarted service loads them on every start.
 */
export function serviceOrmConfig(databaseUrl: string, entities: Options['entities'] = []): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: [...foundationEntities, ...(entities ?? [])],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 10 },
    allowGlobalContext: false,
    debug: false,
  });
}

/** The ORM options with the migrator and every migration: `migrate`, tests and tools. */
export function ormConfig(databaseUrl: string, entities: Options['entities'] = []): Options {
  // Loaded on use, so that importing this library does not load them (serviceOrmConfig).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Migrator } = require('@mikro-orm/migrations') as typeof import('@mikro-orm/migrations');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { migrationsList } = require('./migrations') as typeof import('./migrations');
  return defineConfig({
    ...serviceOrmConfig(databaseUrl, entities),
    extensions: [Migrator],
    migrations: {
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  });
}
