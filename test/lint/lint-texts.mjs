/* global process, URL */
// Lints source texts as if they were the given files, through the ESLint Node API and the
// repository's eslint.config.mjs: reads `[{ filePath, code }]` as JSON on stdin, writes
// `[{ filePath, messages: [{ ruleId, message }] }]`. A process of its own because ESLint
// loads its flat config with import(), which jest's module sandbox does not run.
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cases = JSON.parse(readFileSync(0, 'utf8'));
const eslint = new ESLint({ cwd: root, overrideConfigFile: 'eslint.config.mjs' });
const out = [];
for (const { filePath, code } of cases) {
  const [result] = await eslint.lintText(code, { filePath });
  out.push({
    filePath,
    messages: result.messages.map(({ ruleId, message }) => ({ ruleId, message })),
  });
}
process.stdout.write(JSON.stringify(out));
