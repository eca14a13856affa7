/** Three tiers, chosen by file suffix (STYLE.md §9). */
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
// The int and e2e runs each start their own nats-server and scratch database (opt out:
// DIRIGENT_TEST_SHARED_SERVICES=1); jest runs a hook shared by several projects once.
const ownServices = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
module.exports = {
  testTimeout: 120000,
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
