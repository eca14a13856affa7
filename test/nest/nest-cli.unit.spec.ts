import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * nest-cli.json describes the repository as a Nest monorepo: one application project per
 * folder of services/ (its real `main.ts`) and one library project per folder of libs/ (its
 * `src/index.ts`), each with a tsconfig that extends the root one. The Nest CLI is a dev
 * dependency only, and the production image prunes dev dependencies.
 */

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Project {
  type: 'application' | 'library';
  root: string;
  sourceRoot: string;
  entryFile: string;
  compilerOptions?: { tsConfigPath?: string };
}

const config = JSON.parse(read('nest-cli.json')) as {
  monorepo: boolean;
  compilerOptions: { builder?: string };
  projects: Record<string, Project>;
};
const folders = (top: string) =>
  readdirSync(join(ROOT, top), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

/** What is wrong with a project's entry: the file it starts from and its tsconfig. */
export function projectProblems(name: string, p: Project, exists = existsSync): string[] {
  const problems: string[] = [];
  const entry = `${p.sourceRoot}/${p.entryFile}.ts`;
  if (!exists(join(ROOT, entry))) problems.push(`${name}: no ${entry}`);
  const tsconfig = p.compilerOptions?.tsConfigPath;
  if (!tsconfig || !exists(join(ROOT, tsconfig))) problems.push(`${name}: no tsconfig`);
  else if (!/"extends": "\.\.\/\.\.\/tsconfig\.json"/.test(read(tsconfig))) {
    problems.push(`${name}: ${tsconfig} does not extend the root tsconfig.json`);
  }
  return problems;
}

describe('nest-cli.json', () => {
  it('is a monorepo built with tsc', () => {
    expect(config.monorepo).toBe(true);
    expect(config.compilerOptions.builder).toBe('tsc');
  });

  it('has one application per service and one library per lib, no other', () => {
    const expected = [
      ...folders('services').map((n) => [n, 'application', `services/${n}`]),
      ...folders('libs').map((n) => [n, 'library', `libs/${n}`]),
    ].sort();
    const listed = Object.entries(config.projects)
      .map(([n, p]) => [n, p.type, p.root])
      .sort();
    expect(listed).toEqual(expected);
  });

  it("names each project's real entry file and a tsconfig extending the root one", () => {
    const problems = Object.entries(config.projects).flatMap(([n, p]) => projectProblems(n, p));
    expect(problems).toEqual([]);
    const gone: Project = {
      type: 'application',
      root: 'services/gone',
      sourceRoot: 'services/gone',
      entryFile: 'main',
    };
    expect(projectProblems('gone', gone)).toEqual([
      'gone: no services/gone/main.ts',
      'gone: no tsconfig',
    ]);
  });

  it('keeps the Nest CLI out of production', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string>>;
    expect(pkg.devDependencies['@nestjs/cli']).toMatch(/^11\.\d+\.\d+$/);
    expect(pkg.dependencies['@nestjs/cli']).toBeUndefined();
    // The runtime stage copies node_modules from the build stage after this prune.
    expect(read('Dockerfile')).toMatch(/npm prune --omit=dev/);
  });
});
