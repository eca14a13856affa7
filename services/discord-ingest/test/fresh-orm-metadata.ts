/**
 * Import first in every e2e file that boots the service in-process. MikroORM keeps entity
 * decorator metadata on `globalThis`, which jest (run in band) shares between test files:
 * metadata left by an earlier file holds Maps from its realm and breaks discovery here.
 * Dropping it before any entity module loads gives each file a clean slate.
 */
delete (globalThis as Record<string, unknown>)['mikro-orm-metadata'];

export {};
