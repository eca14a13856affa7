/** Three tiers, chosen by file suffix (CONTRIBUTING.md § Tests). */
// ts-jest in transpile-only mode (the typecheck is its own step). Not @swc/jest: its
// platform binaries are not all on the registry here, which breaks `npm ci`.
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: false }];
const moduleNameMapper = { '^@dirigent/([a-z-]+)$': '<rootDir>/libs/$1/src' };
const base = {
  transform: { '^.+\\.ts$': tsJest },
  moduleNameMapper,
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/fresh-orm-metadata.ts'],
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
};
// The int and e2e runs migrate a scratch database once (jest runs a hook shared by several
// projects once); each test file then gets its own nats-server and a copy of that database
// from the test environment (opt out: DIRIGENT_TEST_SHARED_SERVICES=1).
const ownServices = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testEnvironment: '<rootDir>/libs/testing/src/own-services-environment.ts',
};
module.exports = {
  testTimeout: 120000,
  // DIRIGENT_TEST_ORDER=reverse|shuffle runs the files in another order.
  testSequencer: '<rootDir>/libs/testing/src/order-sequencer.js',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['**/*.unit.spec.ts'] },
    {
      ...base,
      displayName: 'int',
      testMatch: ['**/*.int.spec.ts'],
      ...ownServices,
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['**/*.e2e.spec.ts'],
      ...ownServices,
    },
  ],
};
