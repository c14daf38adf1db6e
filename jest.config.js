const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  // Many test files wait on sockets, child processes and timers rather than on the CPU: half again as
  // many workers as cores keeps the cores busy (jest's default, one fewer than the cores, is 1 here).
  maxWorkers: Math.max(2, Math.ceil(availableParallelism() * 1.5)),
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  testTimeout: 30000,
  // test/e2e gets 90 s (it starts processes and platforms): see the file.
  setupFilesAfterEnv: ['<rootDir>/test/shared/timeouts.ts'],
  reporters: ['default', '<rootDir>/test/shared/summary-reporter.js'],
};
