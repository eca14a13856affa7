/**
 * CPU profiles of one bench phase, and a summary of a profile's hottest frames
 * (docs/performance.md).
 *
 * - `BENCH_CPU_PROFILE=<dir> node dist/bench/run.js turn-coordinator` writes
 *   `<dir>/turn-check.cpuprofile`, the measured phase only (not the set-up).
 * - `node dist/bench/profile.js <file.cpuprofile> [frame]` prints the frames with the most
 *   self time, and with `frame` (a substring of "function file:line") only the time spent
 *   under that frame, e.g. `answer libs/messaging` for the server side of a request.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Runs `fn`; with BENCH_CPU_PROFILE set, under the profiler (100 µs sampling). */
export async function profilePhase(name: string, fn: () => Promise<void>): Promise<void> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  try {
    await fn();
  } finally {
    const { profile } = await post<{ profile: Profile }>('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

const frameName = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url
    .replace(/^.*node_modules\//, '')
    .replace(/^.*dist\//, '')}:${n.callFrame.lineNumber + 1}`;

/** Self time per frame (ms), of the samples under `under` (every sample without it). */
export function selfTimes(
  profile: Profile,
  under?: string,
): { total: number; top: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (under) {
      let inside = false;
      for (let c: number | undefined = id; c !== undefined && !inside; c = parent.get(c)) {
        inside = frameName(byId.get(c)!).includes(under);
      }
      if (!inside) return;
    }
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    const name = frameName(byId.get(id)!);
    self.set(name, (self.get(name) ?? 0) + ms);
  });
  return { total, top: [...self].sort((a, b) => b[1] - a[1]) };
}

if (require.main === module) {
  const [file, under] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node dist/bench/profile.js <file.cpuprofile> [frame]');
    process.exit(2);
  }
  const { total, top } = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile, under);
  console.log(`${under ? `under "${under}": ` : ''}${total.toFixed(0)} ms sampled`);
  for (const [name, ms] of top.slice(0, 30)) {
    console.log(`${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
}
