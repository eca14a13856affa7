/** Three tiers, chosen by file suffix (STYLE.md §9). */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const moduleNameMapper = { '^@dirigent/([a-z-]+)$': '<rootDir>/libs/$1/src' };
const base = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
};
module.exports = {
  testTimeout: 120000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['**/*.unit.spec.ts'] },
    {
      ...base,
      displayName: 'int',
      testMatch: ['**/*.int.spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['**/*.e2e.spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
    },
  ],
};
