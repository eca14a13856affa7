import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a frame's code lives: a `node_modules` package, a `dist` folder or `node:`. */
function packageOf(functionName: string, url: string): string {
  if (!url) return functionName;
  if (url.startsWith('dist/')) return url.split('/').slice(0, 4).join('/');
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url
    .split('/')
    .slice(0, url.startsWith('@') ? 2 : 1)
    .join('/');
}

/**
 * Self time over the profiles in `dir`, as shares of the busy (non-idle) time: the top `n`
 * functions, then the top packages.
 */
export function topFrames(dir: string, n = 25): string[] {
  const self = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busy = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile'))) {
    const prof = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const byId = new Map(prof.nodes.map((x) => [x.id, x]));
    prof.samples.forEach((id, i) => {
      const cf = byId.get(id)!.callFrame;
      if (cf.functionName === '(idle)') return;
      const url = cf.url.replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
      const key = `${cf.functionName || '(anonymous)'} ${url}:${cf.lineNumber + 1}`;
      const pkg = packageOf(cf.functionName, url);
      const dt = prof.timeDeltas[i] ?? 0;
      self.set(key, (self.get(key) ?? 0) + dt);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt);
      busy += dt;
    });
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([key, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`);
  return [
    `busy ${(busy / 1e6).toFixed(1)} s; by function:`,
    ...top(self, n),
    'by package:',
    ...top(byPackage, 15),
  ];
}
