import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

/*
 * The layers (eslint-plugin-boundaries; a lower layer never imports a higher one):
 *
 *   contracts  libs/contracts: the wire (subjects, payload classes, value lists). Imports
 *              nothing of ours.
 *   domain     pure logic, no I/O: libs/turn-domain, router-domain, memory-domain, reactor
 *              (triggers and the job runner over a timer port), skills (the tool registry and
 *              its bundle). Imports contracts and other domain libs.
 *   infra      talks to NATS, Postgres, HTTP, processes or Nest: libs/messaging, event-store,
 *              timers, persistence, service-kit, relay-client, control-web, llm (provider
 *              clients), orchestrator (spawns the coding CLI). Imports contracts, domain, infra.
 *   app        libs/playground: the whole system without Discord, for services/dirigent; it
 *              runs the fake Discord (harness) on purpose.
 *   service    services/<name>: imports every layer but harness, and no other service.
 *   all-in-one services/dirigent (`npm start`): the five services in one process, so it
 *              imports their modules; nothing imports it.
 *   harness    libs/testing, libs/discord-fake, and a lib's own fixtures in libs/<lib>/testing/: what
 *              tests stand on. Imports any library layer.
 *   test       *.spec.ts, services/.../test/, test/, bench/: may import anything.
 *
 * `@dirigent/<lib>` resolves through tsconfig.json's paths (scripts/eslint-resolver.cjs).
 * test/lint/boundaries.unit.spec.ts checks that a wrong import fails this rule.
 */
const LAYER_IMPORTS = {
  contracts: [],
  domain: ['contracts', 'domain'],
  infra: ['contracts', 'domain', 'infra'],
  app: ['contracts', 'domain', 'infra', 'app', 'harness'],
  service: ['contracts', 'domain', 'infra', 'app'],
  'all-in-one': ['contracts', 'domain', 'infra', 'app', 'service'],
  harness: ['contracts', 'domain', 'infra', 'harness'],
  test: ['contracts', 'domain', 'infra', 'app', 'service', 'harness', 'test'],
};
const lib = (...names) => names.map((n) => `libs/${n}`);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.dirigent/**',
      'coverage/**',
      'artifacts/**',
      '*.js',
      '*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': fileURLToPath(new URL('.', import.meta.url)),
      'import/resolver': {
        [fileURLToPath(new URL('scripts/eslint-resolver.cjs', import.meta.url))]: {},
      },
      // A folder's layer; `partialMatch: false`: patterns name folders from the root.
      'boundaries/elements': [
        { type: 'harness', pattern: lib('testing', 'discord-fake'), partialMatch: false },
        { type: 'contracts', pattern: lib('contracts'), partialMatch: false },
        {
          type: 'domain',
          pattern: lib('turn-domain', 'router-domain', 'memory-domain', 'reactor', 'skills'),
          partialMatch: false,
        },
        {
          type: 'infra',
          pattern: lib(
            'messaging',
            'event-store',
            'timers',
            'persistence',
            'service-kit',
            'relay-client',
            'control-web',
            'llm',
            'orchestrator',
          ),
          partialMatch: false,
        },
        { type: 'app', pattern: lib('playground'), partialMatch: false },
        { type: 'all-in-one', pattern: 'services/dirigent', partialMatch: false },
        { type: 'service', pattern: 'services/*', capture: ['service'], partialMatch: false },
        { type: 'test', pattern: ['test', 'bench'], partialMatch: false },
      ],
      // Files inside a folder that are tests or harnesses, whatever the folder's layer.
      'boundaries/files': [
        { category: 'test', pattern: ['**/*.spec.ts', '**/test/**'] },
        { category: 'harness', pattern: ['libs/*/testing/**'] },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            ...Object.entries(LAYER_IMPORTS).map(([from, to]) => ({
              from: { element: { type: from } },
              allow: { to: { element: { types: { anyOf: to } } } },
            })),
            ...['test', 'harness'].map((category) => ({
              from: { file: { categories: category } },
              allow: { to: { element: { types: { anyOf: LAYER_IMPORTS[category] } } } },
            })),
          ],
        },
      ],
    },
  },
  {
    // Every lib and service folder belongs to a layer: a new one must be placed above.
    files: ['libs/**/*.ts', 'services/**/*.ts'],
    rules: { 'boundaries/no-unknown-files': 'error' },
  },
  {
    // A library's own fixtures (libs/<lib>/testing/) are for its tests.
    files: ['libs/**/*.ts', 'services/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/test/**', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/testing/*'],
              message: 'Test fixtures are for tests: production code does not import them.',
            },
          ],
        },
      ],
    },
  },
  {
    // A reader holds a function whole; an exhaustive `evolve` switch may say why it is longer.
    // bench/ is not covered yet: six of its suite functions are still over the limit.
    files: ['services/**/*.ts', 'libs/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false }],
    },
  },
);
