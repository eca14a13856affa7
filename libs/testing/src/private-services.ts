import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { knex, type Knex } from '@mikro-orm/postgresql';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

// Only relative imports and packages here: jest's global setup loads this file without the
// `@dirigent/*` module mapping.

/** Leftovers of a run killed half-way are removed by a later run once they are this old. */
export const STALE_AFTER_MS = 6 * 60 * 60 * 1000;
const DATABASE_PREFIX = 'dirigent_t_';
const NATS_DIR_PREFIX = 'dirigent-t-nats-';

/** `<unix seconds>_<pid>`: when and by whom a scratch resource was made, readable from its name. */
const stamp = () => `${Math.floor(Date.now() / 1000)}_${process.pid}`;
const STAMP = /^(\d+)_(\d+)/;

function parseStamp(rest: string): { createdMs: number; pid: number } | undefined {
  const m = STAMP.exec(rest);
  return m ? { createdMs: Number(m[1]) * 1000, pid: Number(m[2]) } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface PrivateNats {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  /** The server's temp dir (JetStream store, log, pid and ports files). */
  dir: string;
  /** Stops the server and removes its dir. */
  stop(): Promise<void>;
}

export function natsServerBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  const found = dirs.filter(Boolean).find((d) => existsSync(join(d, 'nats-server')));
  if (!found) {
    throw new Error(
      'no nats-server binary on the PATH or in /usr/sbin: install it (apt-get install nats-server) or set DIRIGENT_TEST_SHARED_SERVICES=1 to use NATS_URL',
    );
  }
  return join(found, 'nats-server');
}

async function answers(
  url: string,
  auth: { user?: string; pass?: string; inboxPrefix?: string },
): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, reconnect: false, timeout: 1000, ...auth });
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
      return true;
    } finally {
      await nc.close();
    }
  } catch {
    return false;
  }
}

/** The client URL from the server's ports file, once it is written whole. */
function advertisedUrl(dir: string): string | undefined {
  const file = readdirSync(dir).find((f) => f.endsWith('.ports'));
  try {
    return file ? JSON.parse(readFileSync(join(dir, file), 'utf8')).nats?.[0] : undefined;
  } catch {
    return undefined;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      res();
    });
    child.kill('SIGTERM');
  });
}

/**
 * A nats-server child process with JetStream on a port the OS picks and a fresh store in a
 * temp dir: a test run's own server, empty whatever the machine's NATS holds.
 *
 * @example
 * const nats = await startPrivateNats();
 * process.env.NATS_URL = nats.url;
 * // ... tests ...
 * await nats.stop();
 */
export interface PrivateNatsOptions {
  /** Configuration files written into the server's dir; `nats.conf` is the one it reads. */
  files?: Record<string, string>;
  /** More environment for the server (variables its configuration refers to). */
  env?: NodeJS.ProcessEnv;
  /** A user that may ask for JetStream account info, when the configuration needs one. */
  probe?: { user: string; pass: string; inboxPrefix?: string };
}

export async function startPrivateNats(
  timeoutMs = 15_000,
  opts: PrivateNatsOptions = {},
): Promise<PrivateNats> {
  const binary = natsServerBinary();
  const dir = mkdtempSync(join(tmpdir(), `${NATS_DIR_PREFIX}${stamp()}-`));
  const log = join(dir, 'nats.log');
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), text);
  // `-p -1` with a ports file: the server binds a free port itself, so no probe-then-bind race.
  const args = opts.files?.['nats.conf'] ? ['-c', join(dir, 'nats.conf')] : [];
  args.push('-a', '127.0.0.1', '-p', '-1', '-js', '-sd', join(dir, 'store'));
  args.push('--ports_file_dir', dir, '-P', join(dir, 'nats.pid'), '-l', log);
  const child = spawn(binary, args, { stdio: 'ignore', env: { ...process.env, ...opts.env } });
  // A jest process that exits without its global teardown must not leave the server behind.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const stop = async () => {
    process.off('exit', orphanGuard);
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    const url = advertisedUrl(dir);
    if (url && (await answers(url, opts.probe ?? {}))) return { url, dir, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  const output = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
  await stop();
  throw new Error(`${binary} did not answer with JetStream in ${timeoutMs} ms:\n${output}`);
}

export interface ScratchDatabase {
  name: string;
  /** `baseUrl` with the database swapped for this one. */
  url: string;
  /** `drop database ... with (force)`: open connections are cut. */
  drop(): Promise<void>;
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** A connection for `create`/`drop database`: the base URL's database, else `postgres`. */
async function admin<T>(baseUrl: string, work: (db: Knex) => Promise<T>): Promise<T> {
  const open = (url: string) => knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  let db = open(baseUrl);
  try {
    await db.raw('select 1');
  } catch (e) {
    await db.destroy();
    if ((e as { code?: string }).code !== '3D000') throw e;
    db = open(withDatabase(baseUrl, 'postgres'));
  }
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function dropDatabase(baseUrl: string, name: string): Promise<void> {
  await admin(baseUrl, (db) => db.raw(`drop database if exists ${quoted(name)} with (force)`));
}

/**
 * An empty database named `dirigent_t_<unix seconds>_<pid>` on the server of `baseUrl`.
 *
 * @example
 * const db = await createScratchDatabase('postgres://postgres@127.0.0.1:5432/test');
 * await migrate(db.url);
 * // ... tests ...
 * await db.drop();
 */
export async function createScratchDatabase(baseUrl: string): Promise<ScratchDatabase> {
  const name = `${DATABASE_PREFIX}${stamp()}`;
  await admin(baseUrl, (db) => db.raw(`create database ${quoted(name)}`));
  return { name, url: withDatabase(baseUrl, name), drop: () => dropDatabase(baseUrl, name) };
}

let clones = 0;

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));
/** Not the template itself: a database another session is connected to cannot be copied. */
const serverOf = (url: string) => withDatabase(url, 'postgres');

/**
 * A copy of the database at `templateUrl` (which must have no open connections), named
 * `<template>_<pid>_<n>`: a test file's own migrated database.
 *
 * @example
 * const db = await cloneDatabase(process.env.DIRIGENT_TEST_TEMPLATE_DATABASE_URL!);
 * // ... tests against db.url ...
 * await db.drop();
 */
export async function cloneDatabase(templateUrl: string): Promise<ScratchDatabase> {
  const template = databaseOf(templateUrl);
  const name = `${template}_${process.pid}_${++clones}`;
  const server = serverOf(templateUrl);
  await admin(server, (db) =>
    db.raw(`create database ${quoted(name)} template ${quoted(template)}`),
  );
  return { name, url: withDatabase(templateUrl, name), drop: () => dropDatabase(server, name) };
}

/** Drops every copy {@link cloneDatabase} made of the database at `templateUrl`. */
export async function dropCopies(templateUrl: string): Promise<string[]> {
  const prefix = `${databaseOf(templateUrl)}_`.replace(/[\\_%]/g, (c) => `\\${c}`);
  const server = serverOf(templateUrl);
  const names = await admin(server, async (db) => {
    const r = await db.raw('select datname from pg_database where datname like ?', [`${prefix}%`]);
    return (r.rows as { datname: string }[]).map((row) => row.datname);
  });
  await Promise.all(names.map((name) => dropDatabase(server, name)));
  return names;
}

/**
 * Removes what runs killed half-way left behind: scratch databases older than
 * `STALE_AFTER_MS`, and NATS temp dirs whose run is gone or that old (their server, if it
 * outlived the run, is killed first).
 */
export async function removeStaleTestResources(
  baseUrl: string,
  staleAfterMs = STALE_AFTER_MS,
): Promise<{ databases: string[]; natsDirs: string[] }> {
  const cutoff = Date.now() - staleAfterMs;
  const databases = await admin(baseUrl, async (db) => {
    const rows: { datname: string }[] = (
      await db.raw(`select datname from pg_database where datname like 'dirigent\\_t\\_%'`)
    ).rows;
    return rows
      .map((r) => r.datname)
      .filter((n) => {
        const s = parseStamp(n.slice(DATABASE_PREFIX.length));
        return s !== undefined && s.createdMs < cutoff;
      });
  });
  for (const name of databases) await dropDatabase(baseUrl, name);
  const natsDirs = readdirSync(tmpdir()).filter((f) => {
    if (!f.startsWith(NATS_DIR_PREFIX)) return false;
    const s = parseStamp(f.slice(NATS_DIR_PREFIX.length));
    return !s || s.createdMs < cutoff || !alive(s.pid);
  });
  for (const f of natsDirs) {
    const dir = join(tmpdir(), f);
    killServerOf(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  return { databases, natsDirs };
}

function killServerOf(dir: string): void {
  try {
    const pid = Number(readFileSync(join(dir, 'nats.pid'), 'utf8').trim());
    // The pid may have been reused: kill only a process that still names this dir.
    if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) process.kill(pid, 'SIGKILL');
  } catch {
    // no pid file, or the server is gone
  }
}
