/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }] },
  // ESM-only packages must be transformed to CommonJS for Jest.
  transformIgnorePatterns: ['/node_modules/(?!(jose|@mikro-orm|kysely)/)'],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 30_000,
  maxWorkers: 2,
};
