import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { ROOT, anchorsOf, codeSpans, linkTargets, markdownFiles, readDoc } from './markdown';

/**
 * The README and docs/ name repository paths in code spans (`services/router/config.ts`) and
 * link files; every Markdown file links files. Each must exist, inside the repository, so a
 * newcomer following a recipe or a link never meets a missing file. A placeholder
 * (`services/<svc>/adapters/postgres/`, `bench/results/*.json`) is checked up to the folder
 * before it.
 */

const SPAN_DOCS = ['README.md', ...markdownFiles().filter((f) => f.startsWith('docs/'))];
const ROOTS = /^(services|libs|docs|deploy|bench|scripts|test|\.ci)\//;
const TOP_FILES = new Set([
  'docker-compose.yml',
  'Dockerfile',
  'package.json',
  'nest-cli.json',
  'jest.config.js',
  'tsconfig.json',
  'eslint.config.mjs',
]);

/** The part of a path that must exist: all of it, or the folder before a placeholder. */
function checkable(path: string): string {
  const wild = path.search(/[<*{]/);
  if (wild < 0) return path.replace(/:\d+$/, '');
  return path.slice(0, path.lastIndexOf('/', wild) + 1);
}

export function missingSpanPaths(file: string, markdown: string): string[] {
  return codeSpans(markdown)
    .map((s) => s.replace(/^\.\//, ''))
    .filter((s) => (ROOTS.test(s) || TOP_FILES.has(s)) && !/\s/.test(s))
    .filter((s) => !existsSync(join(ROOT, checkable(s))))
    .map((s) => `${file}: \`${s}\``);
}

export function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split('#');
    const resolved = path ? normalize(join(dirname(file), path)) : file;
    if (resolved.startsWith('..') || relative(ROOT, join(ROOT, resolved)).startsWith('..')) {
      broken.push(`${file}: (${target}) leaves the repository`);
    } else if (!existsSync(join(ROOT, resolved))) {
      broken.push(`${file}: (${target}) does not exist`);
    } else if (anchor && resolved.endsWith('.md') && statSync(join(ROOT, resolved)).isFile()) {
      if (!anchorsOf(readDoc(resolved)).has(anchor)) {
        broken.push(`${file}: (${target}) names no heading of ${resolved}`);
      }
    }
  }
  return broken;
}

/** A file under docs/ says what is: no dated readings, passes or looks (git keeps those). */
const LAB_NOTE = /\d{4}-\d{2}-\d{2}|readings|-pass|look/i;

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : [`${dir}/${e.name}`],
  );
}

describe('paths and links in the docs', () => {
  it('docs/ holds current docs only, and the README stays short', () => {
    expect(filesUnder('docs').filter((f) => LAB_NOTE.test(f))).toEqual([]);
    expect(readDoc('README.md').split('\n').length).toBeLessThanOrEqual(350);
  });

  it('every repository path the README and docs/ name exists', () => {
    expect(SPAN_DOCS.flatMap((f) => missingSpanPaths(f, readDoc(f)))).toEqual([]);
  });

  it('every link of every Markdown file stays in the repository and reaches its file', () => {
    expect(markdownFiles().flatMap((f) => brokenLinks(f, readDoc(f)))).toEqual([]);
  });

  it('notices a missing path, a placeholder folder that is gone, and a link out', () => {
    const text = [
      '`libs/contracts/src/subjects.ts` `services/<svc>/adapters/postgres/`',
      '`libs/contracts/src/gone.ts` `nowhere/<svc>/x.ts`',
      '[contract](../../shared/ARCHITECTURE.md) [config](architecture.md#configuration)',
      '[none](architecture.md#no-such-heading)',
    ].join('\n');
    expect(missingSpanPaths('docs/x.md', text)).toEqual([
      'docs/x.md: `libs/contracts/src/gone.ts`',
    ]);
    expect(brokenLinks('docs/x.md', text)).toEqual([
      'docs/x.md: (../../shared/ARCHITECTURE.md) leaves the repository',
      'docs/x.md: (architecture.md#no-such-heading) names no heading of docs/architecture.md',
    ]);
  });
});
