import { MetadataStorage } from '@mikro-orm/core';

/**
 * Jest `setupFiles` of every tier. MikroORM keeps entity decorator metadata on a
 * process-wide object; under --runInBand each test file re-imports the entity classes in
 * its own module registry (its own realm), and metadata left by an earlier file holds
 * Maps from that realm and breaks discovery. Each file starts from a clean slate.
 */
MetadataStorage.clear();
delete (globalThis as Record<string, unknown>)['mikro-orm-metadata'];
