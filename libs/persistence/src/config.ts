import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ProjectionCheckpoint } from './entities';
import { migrationsList } from './migrations';

/** Entities of every service share one database; each service lists the ones it uses. */
export const foundationEntities = [ProjectionCheckpoint];

export function ormConfig(databaseUrl: string, entities: Options['entities'] = []): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: [...foundationEntities, ...(entities ?? [])],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: 10 },
    allowGlobalContext: false,
    debug: false,
  });
}
