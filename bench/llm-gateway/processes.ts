import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PORTKEY_VERSION = '1.15.2';
/** The repository root (this file runs from dist/bench/llm-gateway). */
export const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Loaded with `-r` into both gateways when profiling: SIGTERM exits normally, so
 * `--cpu-prof` writes its profile (a signal death would not).
 */
const EXIT_ON_SIGTERM = `process.on('SIGTERM', () => process.exit(0));`;

async function waitHttp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: exited ${child.exitCode}: ${log()}`);
    const ok = await fetch(url).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within 60 s: ${log()}`);
}

export interface Server {
  port: number;
  pid?: number;
  stop(): Promise<void>;
}

export interface Observe {
  /** `--cpu-prof` into `<profileDir>/<name>`. */
  profileDir?: string;
  /** The per-stage timer (`stages.js`) writing `<stagesDir>/<name>.json` at exit. */
  stagesDir?: string;
}

/**
 * A service (a gateway, the turn coordinator) as its own process, ready once `readyPath`
 * answers; SIGTERM to stop it.
 */
export async function startProcess(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  readyPath: string,
  observe: Observe = {},
): Promise<Server> {
  const nodeArgs: string[] = [];
  const extraEnv: NodeJS.ProcessEnv = {};
  const { profileDir, stagesDir } = observe;
  if (profileDir || stagesDir) {
    const hook = join(profileDir ?? stagesDir!, 'exit-on-sigterm.js');
    mkdirSync(profileDir ?? stagesDir!, { recursive: true });
    writeFileSync(hook, EXIT_ON_SIGTERM);
    nodeArgs.push('-r', hook);
  }
  if (profileDir) {
    mkdirSync(join(profileDir, name), { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`);
  }
  if (stagesDir) {
    nodeArgs.push('-r', join(__dirname, 'stages.js'));
    extraEnv.LLM_BENCH_STAGES_FILE = join(stagesDir, `${name}.json`);
  }
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { ...process.env, ...env, ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  await waitHttp(`http://127.0.0.1:${port}${readyPath}`, child, () => stderr);
  return {
    port,
    pid: child.pid,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(kill);
          res();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Portkey's open-source gateway, installed on demand into a cache folder (never into the
 * project's package.json). Undefined, with the reason, when it cannot be installed.
 */
export function portkeyEntry(): { entry?: string; note?: string } {
  const cache =
    process.env.LLM_BENCH_CACHE ??
    join(ROOT, 'node_modules', '.cache', 'dirigent-bench', `portkey-gateway-${PORTKEY_VERSION}`);
  const pkg = join(cache, 'node_modules', '@portkey-ai', 'gateway');
  const entry = join(pkg, 'build', 'start-server.js');
  const installed = () => {
    try {
      return (
        JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version === PORTKEY_VERSION
      );
    } catch {
      return false;
    }
  };
  if (!installed() || !existsSync(entry)) {
    mkdirSync(cache, { recursive: true });
    process.stderr.write(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${cache}...\n`);
    const r = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        cache,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        `@portkey-ai/gateway@${PORTKEY_VERSION}`,
      ],
      { encoding: 'utf8', timeout: 300_000 },
    );
    if (r.status !== 0 || !installed() || !existsSync(entry))
      return {
        note: `Portkey's gateway skipped: npm install --prefix ${cache} @portkey-ai/gateway@${PORTKEY_VERSION} failed (${(r.error?.message ?? r.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit ${r.status}`})`,
      };
  }
  return { entry };
}
