import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** What a coding CLI may print before its output is cut. */
export const MAX_OUTPUT_BYTES = 64 * 1024;
/** Between SIGTERM to the process group and SIGKILL. */
const KILL_GRACE_MS = 1000;

/**
 * The CLI's argv: `{task}` replaced inside each element, so the task is always exactly
 * one argument whatever it contains (spaces, quotes, `;`, `$(…)`): there is no shell.
 *
 * @example
 * substituteArgs(['run', '{task}'], 'fix it; rm -rf /'); // ['run', 'fix it; rm -rf /']
 */
export function substituteArgs(args: string[], task: string): string[] {
  return args.map((a) => a.split('{task}').join(task));
}

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why `binary` cannot run, or null when it can: a path must name an executable file, a
 * bare name must be found executable on the PATH.
 */
export function binaryProblem(binary: string, path = process.env.PATH ?? ''): string | null {
  if (!binary.trim()) return 'no binary configured';
  if (isAbsolute(binary) || binary.includes('/')) {
    return executable(resolve(binary)) ? null : `${binary} is missing or not executable`;
  }
  for (const dir of path.split(delimiter)) {
    if (dir && executable(join(dir, binary))) return null;
  }
  return `${binary} is not an executable on the PATH`;
}

export interface CliRun {
  binary: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  /** Aborting kills the process group, like a timeout. */
  signal?: AbortSignal;
  maxOutputBytes?: number;
  env?: NodeJS.ProcessEnv;
}

export interface CliOutcome {
  status: 'success' | 'error' | 'timeout' | 'cancelled';
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout was longer than the cap and was cut. */
  truncated: boolean;
  durationMs: number;
  /** Why it could not start, if it could not. */
  spawnError?: string;
}

class Capped {
  private readonly parts: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    if (this.size >= this.max) {
      this.truncated = true;
      return;
    }
    const room = this.max - this.size;
    if (b.length > room) this.truncated = true;
    const part = b.length > room ? b.subarray(0, room) : b;
    this.parts.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * Runs a CLI without a shell in its own process group (detached), so that a timeout or
 * an abort kills it together with everything it started. Never throws: a CLI that
 * cannot start is an `error` outcome with `spawnError`.
 */
export function runCli(run: CliRun): Promise<CliOutcome> {
  const started = Date.now();
  const max = run.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  const stdout = new Capped(max);
  const stderr = new Capped(max);
  return new Promise((done) => {
    let ending: 'timeout' | 'cancelled' | undefined;
    let finished = false;
    const child = spawn(run.binary, run.args, {
      cwd: run.cwd,
      detached: true,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: run.env ?? process.env,
    });
    const finish = (o: Omit<CliOutcome, 'stdout' | 'stderr' | 'truncated' | 'durationMs'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      done({
        ...o,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated,
        durationMs: Date.now() - started,
      });
    };
    const stop = (why: 'timeout' | 'cancelled') => {
      if (ending || finished || child.pid === undefined) return;
      ending = why;
      const pid = child.pid;
      killGroup(pid, 'SIGTERM');
      setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const onAbort = () => stop('cancelled');
    const timer = setTimeout(() => stop('timeout'), run.timeoutMs);
    run.signal?.addEventListener('abort', onAbort, { once: true });
    if (run.signal?.aborted) stop('cancelled');
    child.stdout.on('data', (b: Buffer) => stdout.push(b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.on('error', (e) =>
      finish({
        status: 'error',
        exitCode: null,
        spawnError: `cannot run ${run.binary}: ${e.message}`,
      }),
    );
    child.on('exit', (code) => {
      // Whatever the CLI left running in its group goes with it.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      const status = ending ?? (code === 0 ? 'success' : 'error');
      // Output still buffered in the pipes arrives before 'close'; do not wait on it forever.
      const settle = setTimeout(() => finish({ status, exitCode: code }), 500);
      child.once('close', () => {
        clearTimeout(settle);
        finish({ status, exitCode: code });
      });
    });
  });
}
