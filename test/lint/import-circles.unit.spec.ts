import { join } from 'node:path';
import {
  findCircle,
  folderGraph,
  folderOf,
  importSpecifiers,
  type FolderGraph,
} from './import-graph';

/**
 * No import circle crosses a lib or a service folder: the production code of libs/* and
 * services/* (tests and fixtures left out), read as a graph of folders, has no cycle.
 */

const ROOT = join(__dirname, '..', '..');

const graphOf = (edges: Record<string, string[]>): FolderGraph =>
  new Map(Object.entries(edges).map(([from, to]) => [from, new Map(to.map((t) => [t, 'x.ts']))]));

describe('the circle detector', () => {
  it('finds none in a graph without one', () => {
    expect(findCircle(graphOf({ a: ['b', 'c'], b: ['c'], c: [] }))).toBeNull();
  });

  it('finds a circle of two and a longer one, naming it from where it closes', () => {
    expect(findCircle(graphOf({ a: ['b'], b: ['a'] }))).toEqual(['a', 'b', 'a']);
    expect(findCircle(graphOf({ a: ['b'], b: ['c'], c: ['d'], d: ['b'] }))).toEqual([
      'b',
      'c',
      'd',
      'b',
    ]);
  });

  it('reads the specifiers of static, re-exporting, dynamic and required imports', () => {
    const source = [
      `import { a } from '@dirigent/contracts';`,
      `import type {\n  B,\n} from "../x/y";`,
      `export * from './z';`,
      `const c = await import('@dirigent/llm');`,
      `const d = require('node:fs');`,
      `import 'reflect-metadata';`,
    ].join('\n');
    expect(importSpecifiers(source)).toEqual([
      '@dirigent/contracts',
      '../x/y',
      './z',
      '@dirigent/llm',
      'node:fs',
      'reflect-metadata',
    ]);
  });

  it('lands an alias in its lib and a relative path in its folder', () => {
    const file = 'libs/persistence/src/m.ts';
    expect(folderOf(ROOT, file, '@dirigent/router-domain')).toBe('libs/router-domain');
    expect(folderOf(ROOT, file, '../../router-domain/src/canonical')).toBe('libs/router-domain');
    expect(folderOf(ROOT, file, './seed')).toBe('libs/persistence');
    expect(folderOf(ROOT, 'services/dirigent/main.ts', '../router/router.module')).toBe(
      'services/router',
    );
    expect(folderOf(ROOT, file, '@nestjs/common')).toBeNull();
  });
});

describe('the folders of libs/ and services/', () => {
  it('import one another without a circle', () => {
    const graph = folderGraph(ROOT);
    expect(graph.get('libs/router-domain')?.has('libs/contracts')).toBe(true);
    const circle = findCircle(graph);
    const how = circle
      ?.slice(1)
      .map((to, i) => `${circle[i]} -> ${to} (${graph.get(circle[i])?.get(to)})`)
      .join('\n');
    expect(how ?? null).toBeNull();
  });
});
