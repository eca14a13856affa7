/**
 * The soak's processes: its own restartable nats-server and the coordinator replicas (the
 * built main.js as child processes), with the small helpers the soak's loop uses around them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort, waitFor } from '@dirigent/testing';
import { natsServerBinary } from '../libs/testing/src/private-services';
import { COORDINATOR_NODE_FLAGS } from '../services/turn-coordinator/node-flags';

const MAIN = resolve(__dirname, '../services/turn-coordinator/main.js');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const soakLog = (msg: string) =>
  process.stderr.write(`[soak ${new Date().toISOString()}] ${msg}\n`);

/** Retries a request while the coordinator is down (it answers UNAVAILABLE or TIMEOUT). */
export async function patiently<T>(
  what: string,
  call: () => Promise<T>,
  untilMs: number,
): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (Date.now() > untilMs) throw new Error(`${what}: ${(e as Error).message}`);
      await sleep(200);
    }
  }
}

/** The soak's own nats-server, restartable on the same port and JetStream store. */
export class SoakNats {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'dirigent-soak-nats-'));
  restarts = 0;

  private constructor(
    readonly port: number,
    /** The HTTP monitoring port (`/connz`: messages in and out per client connection). */
    readonly monitorPort: number,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<SoakNats> {
    const nats = new SoakNats(await freePort(), await freePort());
    await nats.up();
    return nats;
  }

  private async up(): Promise<void> {
    const args = [
      '-a',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-m',
      String(this.monitorPort),
      '-js',
      '-sd',
      join(this.dir, 'store'),
    ];
    this.child = spawn(natsServerBinary(), args, { stdio: 'ignore' });
    await waitFor(
      async () => {
        const nc = await connect({ servers: this.url, reconnect: false, timeout: 1000 });
        try {
          return !!(await (await jetstreamManager(nc)).getAccountInfo());
        } finally {
          await nc.close();
        }
      },
      20_000,
      50,
      'the soak nats-server',
    );
  }

  private async down(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((res) => {
      child.once('exit', () => res());
      child.kill('SIGTERM');
    });
  }

  /** Stops the server (clean shutdown, the store is kept) and starts it again. */
  async restart(): Promise<void> {
    await this.down();
    await this.up();
    this.restarts++;
  }

  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One coordinator replica: the built main.js as a child process, its output kept. */
export class Coordinator {
  private child?: ChildProcess;
  kills = 0;
  private output = '';

  constructor(
    private readonly env: Record<string, string>,
    private readonly logFile?: string,
    /** The replica id in the partition leases (a fresh one per start when `freshIds`). */
    public replicaId = 'soak-r0',
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(replicaId = this.replicaId): void {
    this.replicaId = replicaId;
    // SOAK_CPU_PROFILE=<dir>: a V8 CPU profile per replica process, written when it stops.
    const prof = process.env.SOAK_CPU_PROFILE;
    const main = [...COORDINATOR_NODE_FLAGS, MAIN];
    const args = prof ? ['--cpu-prof', '--cpu-prof-dir', resolve(prof), ...main] : main;
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...this.env, DIRIGENT_COORDINATOR_REPLICA_ID: replicaId },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-20_000);
      if (this.logFile) appendFileSync(this.logFile, d);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.child = child;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((res) => {
      child.once('exit', () => res());
      child.kill(signal);
    });
    if (signal === 'SIGKILL') this.kills++;
  }

  tail(): string {
    return this.output.split('\n').slice(-15).join('\n');
  }
}
