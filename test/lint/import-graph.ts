import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Folder → the folders its files import, each with one file that does (for the message). */
export type FolderGraph = Map<string, Map<string, string>>;

/** Test code and fixtures: `*.spec.ts`, `test/`, a lib's `testing/`. */
const TEST_CODE = /\.spec\.ts$|(^|\/)(test|testing)\//;
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g;
const ALIAS = /^@dirigent\/([a-z-]+)(\/|$)/;

/** The import specifiers of a source text (static, `export … from`, dynamic, `require`). */
export function importSpecifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((m) => m[1]);
}

/**
 * The folder (`libs/<name>` or `services/<name>`) a specifier of `file` lands in: the alias
 * `@dirigent/<name>` is `libs/<name>`, a relative path is followed; anything else is none.
 */
export function folderOf(root: string, file: string, specifier: string): string | null {
  const alias = ALIAS.exec(specifier);
  if (alias) return `libs/${alias[1]}`;
  if (!specifier.startsWith('.')) return null;
  const target = relative(root, resolve(dirname(join(root, file)), specifier)).split(sep);
  return target[0] === 'libs' || target[0] === 'services' ? target.slice(0, 2).join('/') : null;
}

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(root, path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The folder-level import graph of the production code of libs/* and services/*. */
export function folderGraph(root: string): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const top of ['libs', 'services']) {
    for (const name of readdirSync(join(root, top))) {
      const folder = `${top}/${name}`;
      const edges = graph.get(folder) ?? new Map<string, string>();
      graph.set(folder, edges);
      for (const file of sourceFiles(root, folder)) {
        if (TEST_CODE.test(file)) continue;
        for (const specifier of importSpecifiers(readFileSync(join(root, file), 'utf8'))) {
          const to = folderOf(root, file, specifier);
          if (to && to !== folder && !edges.has(to)) edges.set(to, file);
        }
      }
    }
  }
  return graph;
}

/** One circle of the graph (`[a, b, …, a]`), or null when there is none. */
export function findCircle(
  graph: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | null => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return null;
    path.push(node);
    onPath.add(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const circle = visit(node);
    if (circle) return circle;
  }
  return null;
}
