import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The layers of eslint.config.mjs fail the lint on a wrong import: each case is linted as if it
 * were the named file, through the ESLint Node API and the repository's own config
 * (test/lint/lint-texts.mjs, a process of its own: ESLint loads its config with import()).
 */

const ROOT = join(__dirname, '..', '..');

interface Case {
  name: string;
  filePath: string;
  code: string;
  /** The rule that must report it; absent: the import is allowed and nothing is reported. */
  rule?: string;
}

const use = (specifier: string, name: string) =>
  `import { ${name} } from '${specifier}';\nexport const used = ${name};\n`;

const CASES: Case[] = [
  {
    name: 'contracts importing a domain lib',
    filePath: 'libs/contracts/src/probe.ts',
    code: use('@dirigent/router-domain', 'route'),
    rule: 'boundaries/dependencies',
  },
  {
    name: 'contracts importing a domain lib by a relative path',
    filePath: 'libs/contracts/src/probe.ts',
    code: use('../../memory-domain/src/types', 'SEARCH_LAYERS'),
    rule: 'boundaries/dependencies',
  },
  {
    name: 'a domain lib importing messaging',
    filePath: 'libs/turn-domain/src/probe.ts',
    code: use('@dirigent/messaging', 'Messaging'),
    rule: 'boundaries/dependencies',
  },
  {
    name: 'an infrastructure lib importing a service',
    filePath: 'libs/event-store/src/probe.ts',
    code: use('../../../services/router/router.module', 'RouterService'),
    rule: 'boundaries/dependencies',
  },
  {
    name: 'a service importing another service',
    filePath: 'services/router/application/probe.ts',
    code: use('../../memory/memory.module', 'MemoryService'),
    rule: 'boundaries/dependencies',
  },
  {
    name: 'production code of a lib importing the test harness',
    filePath: 'libs/messaging/src/probe.ts',
    code: use('@dirigent/testing', 'uid'),
    rule: 'boundaries/dependencies',
  },
  {
    name: 'production code of a lib importing its own test fixtures',
    filePath: 'libs/messaging/src/probe.ts',
    code: use('../testing/test-fixtures', 'testStream'),
    rule: 'no-restricted-imports',
  },
  {
    name: 'a lib folder placed in no layer',
    filePath: 'libs/unplaced/src/probe.ts',
    code: 'export const used = 1;\n',
    rule: 'boundaries/no-unknown-files',
  },
  {
    name: 'a service importing contracts, a domain lib and an infrastructure lib (allowed)',
    filePath: 'services/router/application/probe.ts',
    code:
      `import { Subjects } from '@dirigent/contracts';\n` +
      `import { route } from '@dirigent/router-domain';\n` +
      `import { Messaging } from '@dirigent/messaging';\n` +
      `export const used = [Subjects, route, Messaging];\n`,
  },
  {
    name: 'a domain lib importing contracts (allowed)',
    filePath: 'libs/router-domain/src/probe.ts',
    code: use('@dirigent/contracts', 'VOICES'),
  },
  {
    name: "a lib's spec importing the harness and its fixtures (allowed)",
    filePath: 'libs/messaging/src/probe.int.spec.ts',
    code:
      `import { uid } from '@dirigent/testing';\n` +
      `import { testStream } from '../testing/test-fixtures';\n` +
      `export const used = [uid, testStream];\n`,
  },
];

interface Linted {
  filePath: string;
  messages: { ruleId: string | null; message: string }[];
}

describe('the layer rule of eslint.config.mjs', () => {
  let results: Linted[];

  beforeAll(() => {
    const input = JSON.stringify(CASES.map(({ filePath, code }) => ({ filePath, code })));
    const out = execFileSync(process.execPath, [join(ROOT, 'test/lint/lint-texts.mjs')], {
      cwd: ROOT,
      input,
      encoding: 'utf8',
    });
    results = JSON.parse(out) as Linted[];
  });

  it.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const { rule } = CASES[i];
    const rules = results[i].messages.map((m) => m.ruleId);
    if (rule) expect(rules).toContain(rule);
    else expect(results[i].messages).toEqual([]);
  });
});
