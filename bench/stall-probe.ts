import { Worker } from 'node:worker_threads';
import { percentile, round } from './stats';

/**
 * How often the machine took the CPU away while a phase ran: a worker thread sleeps 5 ms at a
 * time (`Atomics.wait`, no event loop) and records by how much each sleep overran. On an idle
 * core an overrun above 1 ms means the thread was not scheduled: another process, or on a VM
 * the host, had the CPU. Such stalls hit every request alike, raw echo or check-turn, so they
 * say whether a run's p99 is the code's or the machine's (docs/performance.md,
 * "How to run").
 */
const SLEEPER = `
const { parentPort } = require('node:worker_threads');
const tick = new Int32Array(new SharedArrayBuffer(4));
const overruns = [];
let stop = false;
parentPort.on('message', () => (stop = true));
(function loop() {
  for (let i = 0; i < 20 && !stop; i++) {
    const t0 = process.hrtime.bigint();
    Atomics.wait(tick, 0, 0, 5);
    overruns.push(Number(process.hrtime.bigint() - t0) / 1e6 - 5);
  }
  if (stop) parentPort.postMessage(overruns);
  else setImmediate(loop);
})();
`;

export interface StallReport {
  /** Sleeps that overran by more than 1 ms, per second of the phase. */
  stallsPerSecond: number;
  /** The 99th percentile overrun, ms. */
  p99OverrunMs: number;
}

/** Starts the probe; `stop()` ends it and reports. */
export function startStallProbe(): { stop(): Promise<StallReport> } {
  const worker = new Worker(SLEEPER, { eval: true });
  const started = performance.now();
  return {
    stop: async () => {
      const seconds = (performance.now() - started) / 1000;
      const overruns = await new Promise<number[]>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage('stop');
      });
      await worker.terminate();
      return {
        stallsPerSecond: round(overruns.filter((o) => o > 1).length / seconds, 1),
        p99OverrunMs: round(percentile(overruns, 99), 2),
      };
    },
  };
}
