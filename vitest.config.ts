import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 ships both index.mjs ("module") and index.js ("main"). Node loads the
  // latter for Pothos and Yoga; without this alias Vite hands the project's own files
  // the former, and two copies of graphql refuse each other's types.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/**/*.test.ts'],
    globalSetup: ['apps/api/test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
