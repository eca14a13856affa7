import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './markdown';

/** Tests, fixtures, examples and the test helpers: not production code. */
const SKIP =
  /(^|\/)(test|test-support|fixtures|examples|node_modules)(\/|$)|\.spec\.ts$|^libs\/testing\//;

/** The production sources (`.ts`, `.mjs`) below a folder of the repository, relative. */
export function productionSources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (SKIP.test(path)) return [];
    if (e.isDirectory()) return productionSources(path);
    return /\.(ts|mjs)$/.test(e.name) ? [path] : [];
  });
}
