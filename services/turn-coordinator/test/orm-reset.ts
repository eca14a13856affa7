import { MetadataStorage } from '@mikro-orm/core';

/**
 * MikroORM keeps entity metadata in a process-wide store. With `--runInBand` every test file
 * runs in this one process, each in its own VM context, and metadata left by the previous
 * file (its Maps belong to that context) breaks entity discovery here. Imported before
 * anything that declares an entity, so this file's decorators register afresh.
 */
MetadataStorage.clear();
