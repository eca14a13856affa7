import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knex, type Knex } from '@mikro-orm/postgresql';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { testDatabaseUrl, testNatsUrl } from './env';
import {
  cloneDatabase,
  createScratchDatabase,
  dropCopies,
  removeStaleTestResources,
  startPrivateNats,
} from './private-services';
import { sharedServices, TEMPLATE_DATABASE_VAR } from './test-run';

const MACHINE_NATS = 'nats://127.0.0.1:4222';

async function serverId(url: string): Promise<string | undefined> {
  try {
    const nc = await connect({ servers: url, reconnect: false, timeout: 1000 });
    const id = nc.info?.server_id;
    await nc.close();
    return id;
  } catch {
    return undefined;
  }
}

async function withDb<T>(url: string, work: (db: Knex) => Promise<T>): Promise<T> {
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const databaseExists = (name: string) =>
  withDb(testDatabaseUrl(), async (db) => {
    const r = await db.raw('select 1 from pg_database where datname = ?', [name]);
    return r.rows.length === 1;
  });

(sharedServices() ? describe.skip : describe)('the test file’s own services', () => {
  it('uses its own nats-server, not the machine’s', async () => {
    const url = new URL(testNatsUrl());
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.port).not.toBe('4222');
    const own = await serverId(testNatsUrl());
    expect(own).toBeDefined();
    expect(own).not.toBe(await serverId(MACHINE_NATS));
  });

  it('starts from an empty JetStream: no stream another file or run left', async () => {
    const nc = await connect({ servers: testNatsUrl() });
    try {
      const jsm = await jetstreamManager(nc);
      expect(await jsm.streams.list().next()).toEqual([]);
    } finally {
      await nc.close();
    }
  });

  it('uses a migrated database of its own, copied from the run’s', async () => {
    const name = new URL(testDatabaseUrl()).pathname.slice(1);
    const template = new URL(process.env[TEMPLATE_DATABASE_VAR]!).pathname.slice(1);
    expect(template).toMatch(/^dirigent_t_\d+_\d+$/);
    expect(name).toMatch(new RegExp(`^${template}_\\d+_\\d+$`));
    const { current, migrations } = await withDb(testDatabaseUrl(), async (db) => ({
      current: (await db.raw('select current_database() as d')).rows[0].d,
      migrations: Number(
        (await db.raw('select count(*) as n from mikro_orm_migrations')).rows[0].n,
      ),
    }));
    expect(current).toBe(name);
    expect(migrations).toBeGreaterThan(0);
  });

  it('sets the world in this process’s environment for children spawned without one', () => {
    const outer = spawnSync(
      process.execPath,
      ['-p', 'process.env.NATS_URL + " " + process.env.DATABASE_URL'],
      {
        encoding: 'utf8',
      },
    );
    expect(outer.stdout.trim()).toBe(`${testNatsUrl()} ${testDatabaseUrl()}`);
  });
});

describe('private services', () => {
  it('starts a nats-server of its own and removes it on stop', async () => {
    const nats = await startPrivateNats();
    const id = await serverId(nats.url);
    expect(id).toBeDefined();
    expect(id).not.toBe(await serverId(testNatsUrl()));
    await nats.stop();
    expect(existsSync(nats.dir)).toBe(false);
    expect(await serverId(nats.url)).toBeUndefined();
  });

  it('copies a database and drops the copies, the original untouched', async () => {
    const original = await createScratchDatabase(testDatabaseUrl());
    try {
      await withDb(original.url, (db) =>
        db.raw('create table marks (n int); insert into marks values (7)'),
      );
      const [a, b] = [await cloneDatabase(original.url), await cloneDatabase(original.url)];
      const rows = await withDb(a.url, async (db) => (await db.raw('select n from marks')).rows);
      expect(rows).toEqual([{ n: 7 }]);
      await a.drop();
      expect(await databaseExists(a.name)).toBe(false);
      expect(await dropCopies(original.url)).toEqual([b.name]);
      expect(await databaseExists(b.name)).toBe(false);
      expect(await databaseExists(original.name)).toBe(true);
    } finally {
      await original.drop();
    }
  });

  it('creates and drops a scratch database, even with a connection open', async () => {
    const db = await createScratchDatabase(testDatabaseUrl());
    expect(await databaseExists(db.name)).toBe(true);
    const holder = knex({ client: 'pg', connection: db.url, pool: { min: 1, max: 1 } });
    try {
      await holder.raw('select 1');
      await db.drop();
      expect(await databaseExists(db.name)).toBe(false);
    } finally {
      await holder.destroy().catch(() => undefined);
    }
  });

  it('removes leftovers of killed runs and keeps those of live ones', async () => {
    const hoursAgo = Math.floor(Date.now() / 1000) - 7 * 3600;
    const oldDb = `dirigent_t_${hoursAgo}_${process.pid}`;
    await withDb(testDatabaseUrl(), (db) => db.raw(`create database "${oldDb}"`));
    const fresh = await createScratchDatabase(testDatabaseUrl());
    // A dir named after a run whose process is gone (pids never reach 2^22 on Linux).
    const deadRunDir = mkdtempSync(join(tmpdir(), `dirigent-t-nats-${hoursAgo + 3600}_4194305-`));
    const live = await startPrivateNats();
    try {
      const removed = await removeStaleTestResources(testDatabaseUrl());
      expect(removed.databases).toContain(oldDb);
      expect(removed.databases).not.toContain(fresh.name);
      expect(await databaseExists(oldDb)).toBe(false);
      expect(await databaseExists(fresh.name)).toBe(true);
      expect(existsSync(deadRunDir)).toBe(false);
      expect(existsSync(live.dir)).toBe(true);
      expect(await serverId(live.url)).toBeDefined();
    } finally {
      await live.stop();
      await fresh.drop();
    }
  });
});
