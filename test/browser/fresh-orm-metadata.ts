import { MetadataStorage } from '@mikro-orm/core';

// MikroORM keeps entity metadata on a process-wide object. Under --runInBand every test
// file re-imports the entity classes in its own module registry, and metadata left by an
// earlier file would be merged into theirs. Imported first by each browser suite, before
// any entity class is decorated.
MetadataStorage.clear();
