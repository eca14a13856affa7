import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const NEST = join(ROOT, 'node_modules/@nestjs/cli/bin/nest.js');

jest.setTimeout(600_000);

/**
 * `nest build <project>` works in this monorepo: the llm-gateway (the smallest service)
 * builds with the Nest CLI into a directory of its own, its `@dirigent/*` imports rewritten
 * to relative paths, and the output loads its module graph.
 */
describe('nest build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-nest-build-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds the llm-gateway into a directory of its own, and its module loads', async () => {
    const out = join(dir, 'out');
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(ROOT, 'services/llm-gateway/tsconfig.app.json'),
        compilerOptions: { outDir: out },
      }),
    );
    // The CLI reads --path relative to the workspace.
    await run(
      process.execPath,
      [NEST, 'build', 'llm-gateway', '--path', relative(ROOT, tsconfig)],
      {
        cwd: ROOT,
      },
    );

    const main = join(out, 'services/llm-gateway/main.js');
    expect(existsSync(main)).toBe(true);
    await run(process.execPath, ['--check', main]);
    const module = join(out, 'services/llm-gateway/llm-gateway.module.js');
    const { stdout } = await run(
      process.execPath,
      ['-e', `process.stdout.write(require(${JSON.stringify(module)}).LlmGatewayService.name)`],
      { cwd: ROOT, env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') } },
    );
    expect(stdout).toBe('llm-gateway');
  });
});
