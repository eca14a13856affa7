/**
 * `npm run dev -- <service>`: one service under `nest start <service> --watch`, compiled and
 * restarted on every change, against the NATS, Postgres and playground that `npm start` runs.
 * `npm start` writes the environment it gives its services to `.dirigent/services.env.json`
 * (`DIRIGENT_DATA_DIR`); started with `DIRIGENT_START_WITHOUT=<service>` it leaves that one
 * out, so its port and its consumers are free for the copy run here. Variables set in the
 * shell win over the file; without the file, NATS_URL and DATABASE_URL must be set.
 * Further arguments go to `nest start` (e.g. `--debug`).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { projects } = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
const services = Object.keys(projects).filter((n) => projects[n].type === 'application');
const [name, ...rest] = process.argv.slice(2);
if (!services.includes(name)) {
  console.error(
    `usage: npm run dev -- <service> [nest start options]; one of ${services.join(', ')}`,
  );
  process.exit(2);
}

const envFile = resolve(root, process.env.DIRIGENT_DATA_DIR ?? '.dirigent', 'services.env.json');
let shared = {};
if (existsSync(envFile)) {
  shared = JSON.parse(readFileSync(envFile, 'utf8'));
} else if (!process.env.NATS_URL || !process.env.DATABASE_URL) {
  console.error(
    `no ${envFile}: start the others first (DIRIGENT_START_WITHOUT=${name} npm start), or set NATS_URL and DATABASE_URL`,
  );
  process.exit(2);
}

const nest = join(root, 'node_modules/@nestjs/cli/bin/nest.js');
const child = spawn(
  process.execPath,
  [nest, 'start', name, '--watch', '--preserveWatchOutput', ...rest],
  { cwd: root, env: { ...shared, ...process.env }, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
