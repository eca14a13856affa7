import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

/** The nats-server binary: on the PATH, else /usr/sbin or /usr/local/sbin. */
export function natsServerBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  const found = dirs.filter(Boolean).find((d) => existsSync(join(d, 'nats-server')));
  if (!found) throw new Error('no nats-server binary on the PATH (install nats-server >= 2.9)');
  return join(found, 'nats-server');
}

export interface NatsServerProcess {
  readonly url: string;
  readonly dir: string;
  readonly pid: number | undefined;
  /** The server's log so far (for diagnostics). */
  log(): string;
  /** Resolves once a client of this server reaches JetStream (on a leaf: the link is up). */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGTERM (or `signal`), waits for the exit; `keepDir` leaves the config and store. */
  stop(signal?: NodeJS.Signals, keepDir?: boolean): Promise<void>;
}

/**
 * Runs nats-server with `config` (written to a fresh temp dir, `{dir}` replaced by it), its
 * clients on `port`. A parent that exits without stopping it takes it along.
 */
export function startNatsServer(config: string, port: number, dir?: string): NatsServerProcess {
  const home = dir ?? mkdtempSync(join(tmpdir(), 'dirigent-nats-'));
  const file = join(home, 'nats.conf');
  const logFile = join(home, 'nats.log');
  writeFileSync(file, config.replaceAll('{dir}', home), { mode: 0o600 });
  const child: ChildProcess = spawn(natsServerBinary(), ['-c', file, '-l', logFile], {
    stdio: 'ignore',
  });
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const url = `nats://127.0.0.1:${port}`;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  return {
    url,
    dir: home,
    pid: child.pid,
    log,
    async ready(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        if (child.exitCode !== null) break;
        try {
          const nc = await connect({ servers: url, reconnect: false, timeout: 1000 });
          try {
            await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo();
            return;
          } finally {
            await nc.close();
          }
        } catch (e) {
          last = String((e as Error).message ?? e);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`nats-server on ${url} not ready (${last}):\n${log().slice(-1500)}`);
    },
    async stop(signal = 'SIGTERM', keepDir = false) {
      process.off('exit', orphanGuard);
      if (child.exitCode === null && child.signalCode === null) {
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.kill(signal);
        await exited;
        clearTimeout(force);
      }
      if (!keepDir) rmSync(home, { recursive: true, force: true });
    },
  };
}
