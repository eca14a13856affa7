import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT, anchorOf, anchorsOf, readDoc } from './markdown';

/**
 * The repository stands on its own: no tracked file cites a file it does not hold. The
 * project's conventions are in CONTRIBUTING.md, so no file names a style guide kept
 * elsewhere (`STYLE.md`), and no relative path (`../shared/…`) climbs out of the repository
 * from the file that writes it (nor from its compiled copy under dist/).
 */

const FOREIGN_NAMES = /\bSTYLE\.md\b/g;
const RELATIVE_PATH = /(?:\.\.\/)+[\w@.-]*(?:\/[\w@.-]+)*/g;
const TOO_LARGE = 1024 * 1024;
/** A citation of the conventions, `CONTRIBUTING.md § Habits`. */
const CONVENTION = /CONTRIBUTING\.md § ([\w' -]+?)(?=[).,;:]|$)/gm;

const outside = (path: string) => relative(ROOT, path).startsWith('..');

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && f !== 'package-lock.json');
}

/** The citations of a file's text that lead outside the repository, as `file: citation`. */
export function outsideCitations(file: string, text: string): string[] {
  const found = [...text.matchAll(FOREIGN_NAMES)].map((m) => m[0]);
  for (const [path] of text.matchAll(RELATIVE_PATH)) {
    if (!outside(join(ROOT, dirname(file), path))) continue;
    // Compiled code runs from dist/ (the same folders below it): a path counted from there
    // into a folder the repository holds stays in.
    const compiled = join(ROOT, 'dist', dirname(file), path);
    if (outside(compiled) || !existsSync(dirname(compiled))) found.push(path);
  }
  return found.map((c) => `${file}: ${c}`);
}

/** The `CONTRIBUTING.md § <section>` citations of a text that name no heading of it. */
export function unknownSections(file: string, body: string, contributing: string): string[] {
  const headings = anchorsOf(contributing);
  return [...body.matchAll(CONVENTION)]
    .filter((m) => !headings.has(anchorOf(m[1])))
    .map((m) => `${file}: ${m[0]}`);
}

function text(file: string): string | null {
  const path = join(ROOT, file);
  try {
    if (statSync(path).size > TOO_LARGE) return null;
  } catch {
    return null; // deleted in the working tree
  }
  const body = readFileSync(path, 'utf8');
  return body.includes('\0') ? null : body;
}

/** What `check` finds in each tracked text file (this one left out: it spells examples). */
function eachTracked(check: (file: string, body: string) => string[]): string[] {
  const self = relative(ROOT, __filename);
  return trackedFiles()
    .filter((f) => f !== self)
    .flatMap((f) => {
      const body = text(f);
      return body === null ? [] : check(f, body);
    });
}

describe('the repository cites nothing outside itself', () => {
  it('no tracked file names a style guide kept elsewhere or climbs out of the repository', () => {
    expect(eachTracked(outsideCitations)).toEqual([]);
  });

  it('cites only sections CONTRIBUTING.md has', () => {
    const contributing = readDoc('CONTRIBUTING.md');
    expect(eachTracked((f, body) => unknownSections(f, body, contributing))).toEqual([]);
    const body = '/** Pure (CONTRIBUTING.md § Habits). Tiers (CONTRIBUTING.md § Tiers). */';
    expect(unknownSections('x.ts', body, '# C\n## Habits\n')).toEqual([
      'x.ts: CONTRIBUTING.md § Tiers',
    ]);
  });

  it('notices a foreign style guide and a path that leaves, not one that stays', () => {
    const style = ['STYLE', 'md'].join('.');
    const body = [
      `/** Pure (${style} §2). */`,
      "import { x } from '../../shared/ARCHITECTURE.md';",
      "import { y } from '../../llm-gateway/test/fake-upstreams';",
      "const results = '../../../bench/results/x.json';",
      'see [the contract](../docs/architecture.md)',
    ].join('\n');
    expect(outsideCitations('services/memory/test/x.ts', body)).toEqual([
      `services/memory/test/x.ts: ${style}`,
    ]);
    expect(outsideCitations('libs/x.ts', body)).toEqual([
      `libs/x.ts: ${style}`,
      'libs/x.ts: ../../shared/ARCHITECTURE.md',
      'libs/x.ts: ../../llm-gateway/test/fake-upstreams',
      'libs/x.ts: ../../../bench/results/x.json',
    ]);
  });
});
