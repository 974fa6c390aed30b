import { globSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const INCLUDE = ['apps/*/test/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/**/*.test.ts', 'demo/test/**/*.test.ts', 'scripts/**/*.test.ts'];
const EXCLUDE = ['**/node_modules/**'];

/**
 * The files whose subject is the embedded default, run on PGlite (with no Redis) in every run;
 * every other file runs on the machine's PostgreSQL with Redis, as production does. Named by
 * file name, so a file keeps its place when it moves. (The demo's tests and the fault suite start
 * gateways of their own, whatever their project.) docs/decisions.md, "Toolchain".
 */
const ON_PGLITE: Record<string, string> = {
  'database.test.ts': 'PGlite under DATA_DIR is the default (a regression once used the machine server); it starts a PostgreSQL gateway beside it',
  'data-dir-mode.test.ts': "the embedded database's own files under DATA_DIR are owner-only",
  'durability.test.ts': 'a killed embedded gateway replays its write-ahead file into its data folder once, and SIGTERM drains into it',
  'billing-durability.test.ts': "the same replay for charges, into the embedded database's ledger",
  'idempotency-restart.test.ts': 'without Redis, answered Idempotency-Keys outlive a restart in the data folder',
  'billing-concurrency.test.ts': 'its second half is one process on the in-process hot store (its first half starts PostgreSQL + Redis replicas itself)',
  'embedded.test.ts': 'the embedded database runs on its own thread, off the serving one',
  'quick-start.test.ts': "the README's quick start: `npm start` with no database server",
};
const onPglite = Object.keys(ON_PGLITE).map((name) => `**/${name}`);
for (const glob of onPglite) {
  const found = INCLUDE.flatMap((pattern) => globSync(pattern, { cwd: root, exclude: (p) => p.includes('node_modules') })).filter((f) => f.endsWith(`/${glob.slice(3)}`));
  if (found.length !== 1) throw new Error(`vitest.config.ts: ON_PGLITE names ${glob.slice(3)}, which matches ${found.length} test files (one expected)`);
}

/**
 * TEST_DB=pglite or TEST_DB=postgres puts every file on that database (the embedded one needs no
 * server; `npm test` with TEST_LEG=pglite). TEST_FAST_PATH=off turns the socket path off in every
 * test gateway (test/support/gateway.ts); it is on by default, as in production.
 */
const forcedDb = process.env.TEST_DB;
const fastPath = process.env.TEST_FAST_PATH ?? 'on';
const globalSetup = ['apps/api/test/support/global-setup.ts'];
const projects: TestProjectInlineConfiguration[] = [
  { extends: true, test: { name: 'postgres+redis', include: INCLUDE, exclude: [...EXCLUDE, ...onPglite], env: { TEST_DB: 'postgres', TEST_FAST_PATH: fastPath } } },
  { extends: true, test: { name: 'pglite', include: onPglite, exclude: EXCLUDE, env: { TEST_DB: 'pglite', TEST_FAST_PATH: fastPath }, globalSetup } },
];

export default defineConfig({
  // graphql 16 ships both index.mjs ("module") and index.js ("main"). Node loads the
  // latter for Pothos and Yoga; without this alias Vite hands the project's own files
  // the former, and two copies of graphql refuse each other's types.
  // The SDK's package.json exports its built dist/ (what npm installs); tests run its source.
  resolve: {
    alias: [
      { find: /^graphql$/, replacement: 'graphql/index.js' },
      { find: /^@optimizer\/sdk$/, replacement: fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) },
      { find: /^@optimizer\/sdk\/(ai|langchain|trpc)$/, replacement: fileURLToPath(new URL('./packages/sdk/src/$1/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // (a project extending this config adds to its lists: they are set here only without projects)
    ...(forcedDb ? { include: INCLUDE, exclude: EXCLUDE, globalSetup } : { projects }),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each worker process runs its files one after another in the same module graph. Isolated, each
    // file re-imported the gateway's whole graph (Fastify, GraphQL, tRPC, MikroORM, the vendors'
    // SDKs): about 3 s a file, a third of the suite's time. Every file starts its own gateways,
    // databases and vendors and stops them in its afterAll; a test that changes process.env puts it
    // back. Vitest still gives each project fresh workers (its environment differs): one project's
    // files run, then the other's. docs/decisions.md, "Toolchain".
    isolate: false,
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
