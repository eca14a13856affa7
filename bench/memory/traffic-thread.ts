import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { closeMessaging, testMessaging } from '@dirigent/testing';
import { LiveTraffic } from './live-traffic';
import type { SeededGuild } from './seed';

type Command =
  | { op: 'start' }
  | { op: 'burst'; count: number; channelIds: string[] }
  | { op: 'published' }
  | { op: 'stop' };

interface Setup {
  guild: SeededGuild;
  perSecond: number;
  idBase: bigint;
}

/**
 * {@link LiveTraffic} on a worker thread of its own, with its own NATS connection: the
 * community that talks to the service is not the service. In deployment the messages come
 * from the Discord ingest's process; published from the bench's main thread, their
 * encoding, acks and promises ran on the event loop the service answers searches on (about
 * a sixth of that loop's busy time in the burst), and counted as the service's delay.
 */
export class TrafficThread {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private readonly replies: ((value: number) => void)[] = [];
  private failed?: Error;
  private stopped = false;

  constructor(guild: SeededGuild, perSecond: number, idBase: bigint) {
    this.worker = new Worker(__filename, {
      workerData: { guild, perSecond, idBase } satisfies Setup,
    });
    this.worker.on('error', (e) => (this.failed = e));
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('message', () => resolve());
      this.worker.once('error', reject);
    });
    this.worker.on('message', (n: number | 'ready') => {
      if (n !== 'ready') this.replies.shift()?.(n);
    });
  }

  /** The steady stream starts. */
  start(): Promise<number> {
    return this.ask({ op: 'start' });
  }

  /** Publishes `count` messages into `channelIds` as fast as acks come back. */
  async burst(count: number, channelIds: string[]): Promise<void> {
    await this.ask({ op: 'burst', count, channelIds });
  }

  /** Messages published by the steady stream so far. */
  published(): Promise<number> {
    return this.ask({ op: 'published' });
  }

  /** Stops the stream, waits for its publishes, and ends the thread. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.failed) await this.ask({ op: 'stop' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private async ask(c: Command): Promise<number> {
    await this.ready;
    if (this.failed) throw this.failed;
    const reply = new Promise<number>((resolve) => this.replies.push(resolve));
    this.worker.postMessage(c);
    return reply;
  }
}

async function serve(setup: Setup): Promise<void> {
  const messaging = await testMessaging('memory-live-traffic');
  const traffic = new LiveTraffic(messaging, setup.guild, setup.perSecond, setup.idBase);
  // One command at a time, in order: each is answered with a number.
  let queue = Promise.resolve();
  parentPort!.on('message', (c: Command) => {
    queue = queue.then(async () => {
      if (c.op === 'start') traffic.start();
      else if (c.op === 'burst') await traffic.burst(c.count, c.channelIds);
      else if (c.op === 'stop') {
        await traffic.stop();
        await closeMessaging(messaging);
      }
      parentPort!.postMessage(traffic.published);
    });
  });
  parentPort!.postMessage('ready');
}

if (!isMainThread && (workerData as Setup | undefined)?.guild) {
  void serve(workerData as Setup);
}
