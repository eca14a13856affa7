import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_foundation } from './Migration20261122000000_foundation';

/**
 * Every migration, in order. Listed explicitly (not discovered by glob) so that the built
 * `dist/` and the TypeScript sources run the same list. Add new ones at the end.
 */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
];
