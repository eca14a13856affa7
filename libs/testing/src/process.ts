import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the child prints `line` on stdout. */
  waitForLine(line: string, timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs a built script as a child process with extra environment. `distPath` is resolved from
 * the folder that holds `libs/`: the repository root under ts-jest (`dist/...`), but `dist/`
 * itself in built code (a bench), which therefore passes an absolute path.
 */
export function spawnNode(
  distPath: string,
  env: Record<string, string>,
  args: string[] = [],
  nodeFlags: readonly string[] = [],
): Spawned {
  const script = resolve(__dirname, '../../../', distPath);
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    child,
    output: () => out,
    waitForLine: (line, timeoutMs = 20_000) =>
      new Promise((res, rej) => {
        const timer = setTimeout(
          () => rej(new Error(`child did not print "${line}" in ${timeoutMs} ms:\n${out}`)),
          timeoutMs,
        );
        const check = () => {
          if (out.split('\n').includes(line)) {
            clearTimeout(timer);
            child.stdout!.off('data', check);
            res();
          }
        };
        child.stdout!.on('data', check);
        child.once('exit', (code) => {
          clearTimeout(timer);
          if (!out.split('\n').includes(line)) rej(new Error(`child exited (${code}):\n${out}`));
        });
        check();
      }),
    kill: (signal = 'SIGTERM') =>
      new Promise((res) => {
        if (child.exitCode !== null || child.signalCode !== null) return res();
        child.once('exit', () => res());
        child.kill(signal);
      }),
  };
}

/** A TCP port on loopback that nothing listens on right now (for a child's HTTP port). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export interface SpawnedService extends Spawned {
  /** The HTTP port the service listens on (its `/healthz` and `/metrics`). */
  port: number;
}

/**
 * Starts a built service (`dist/services/<name>/main.js`) as a child process on a free HTTP
 * port, passed in `portVar`, and resolves once its `/healthz` answers 200: the port opens
 * after the service's consumers and request handlers are up. Rejects with the child's
 * output when it exits first or is not healthy within `timeoutMs` (the child is killed).
 *
 * @example
 * const memory = await spawnService('dist/services/memory/main.js', 'MEMORY_PORT', {
 *   NATS_URL: testNatsUrl(),
 *   DATABASE_URL: testDatabaseUrl(),
 * });
 * await memory.kill('SIGKILL');
 */
export async function spawnService(
  distPath: string,
  portVar: string,
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  nodeFlags: readonly string[] = [],
): Promise<SpawnedService> {
  const port = await freePort();
  const defined = Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined);
  const spawned = spawnNode(
    distPath,
    { ...Object.fromEntries(defined), [portVar]: String(port) },
    [],
    nodeFlags,
  );
  const deadline = Date.now() + timeoutMs;
  while (spawned.child.exitCode === null && Date.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    if (res?.ok) return { ...spawned, port };
    await new Promise((r) => setTimeout(r, 50));
  }
  const why =
    spawned.child.exitCode === null
      ? `did not answer /healthz on port ${port} in ${timeoutMs} ms`
      : `exited (${spawned.child.exitCode})`;
  await spawned.kill('SIGKILL');
  throw new Error(`${distPath} ${why}:\n${spawned.output()}`);
}
