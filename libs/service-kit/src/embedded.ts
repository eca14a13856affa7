import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** A dependency the launcher started itself, stopped when Dirigent stops. */
export interface Embedded {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export class EmbeddedError extends Error {}

async function natsAnswers(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, reconnect: false, timeout: 1000 });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, binary);
    if (dir && existsSync(candidate)) return candidate;
  }
  for (const dir of ['/usr/sbin', '/usr/local/sbin']) {
    if (existsSync(join(dir, binary))) return join(dir, binary);
  }
  return undefined;
}

const isLoopback = (url: string) => {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
};

/**
 * NATS for `npm start`: the configured URL when something answers there; otherwise, for
 * a local (loopback) URL only, a `nats-server` child process with JetStream and a store
 * under `dataDir`.
 */
export async function ensureNats(url: string, dataDir: string): Promise<Embedded> {
  if (await natsAnswers(url)) return { url, embedded: false, stop: async () => undefined };
  const binary = onPath('nats-server');
  if (!isLoopback(url) || !binary) {
    throw new EmbeddedError(
      `NATS does not answer at ${url}${binary ? '' : ' and no nats-server binary is on the PATH'}: install nats-server (apt-get install nats-server, or https://github.com/nats-io/nats-server/releases) or set NATS_URL to a running server with JetStream`,
    );
  }
  const store = resolve(dataDir, 'nats');
  mkdirSync(store, { recursive: true });
  const port = new URL(url).port || '4222';
  const child: ChildProcess = spawn(binary, ['-a', '127.0.0.1', '-p', port, '-js', '-sd', store], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 50; i++) {
    if (child.exitCode !== null) break;
    if (await natsAnswers(url)) {
      return {
        url,
        embedded: true,
        stop: () =>
          new Promise<void>((res) => {
            if (child.exitCode !== null) return res();
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new EmbeddedError(`started ${binary} but it did not answer at ${url}`);
}
