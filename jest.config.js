const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  // Many test files wait on sockets, child processes and timers rather than on the CPU: half again as
  // many workers as cores keeps the cores busy (jest's default, one fewer than the cores, is 1 here).
  maxWorkers: Math.max(2, Math.ceil(availableParallelism() * 1.5)),
  // A worker that has run many files exits with nothing open, but freeing its heap (400-700 MB) took
  // 0.3-1 s on a loaded machine (strace: hundreds of munmap calls after 'exit'): past jest's 500 ms
  // it was killed, with "A worker process has failed to exit gracefully". A real leak (a server, a
  // child process or a timer left open) still shows: the worker then never exits by itself.
  workerGracefulExitTimeout: 10_000,
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  testTimeout: 30000,
  // test/e2e gets 90 s, the folders that start platforms in process 60 s: see the file.
  setupFilesAfterEnv: ['<rootDir>/test/shared/timeouts.ts'],
  reporters: ['default', '<rootDir>/test/shared/summary-reporter.js'],
};
