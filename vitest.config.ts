import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const SAME_ON_EVERY_LEG = [
  'demo/test/**',
  'packages/sdk/test/pack.test.ts',
  'packages/mock-providers/test/**',
  'packages/sdk/test/{admin,client,docs,errors,policy,run,settings,stream,trpc-types,workflows}.test.ts',
  'bench/**/*.test.ts', // bench/scale's test included: it starts its own database, Redis db and replicas whatever the leg
  'apps/api/test/providers/**',
  'apps/api/test/{assemble,billing-month,catalog-seed,ensembles,error-docs,http1-client,lint-bans,meter-group-commit,notices,outbound,outcomes-memory,outcomes-peers,prune,security,sse,wal-full-disk}.test.ts',
  'apps/api/test/{exploration,semantic-cache,semantic-cache-bounds,semantic-packaged-model,semantic-precision}.test.ts',
  'apps/api/test/{address-guard,fast-path-differential,guard-detectors,guard-set,prompt-bound,three-doors-types}.test.ts',
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
    include: ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/**/*.test.ts', 'demo/test/**/*.test.ts'],
    // What runs the same whatever the leg runs once, on the PGlite leg: the demo (its own embedded
    // gateway), the SDK's npm pack and install, the README's quick start (a real `npm start`), and
    // every file that starts no gateway and opens no database (wire translations, the mock vendors,
    // the SDK against its own test server, pure units), and the socket path's differential test,
    // which sets the switch on each of its two gateways itself. The PostgreSQL leg is for what a
    // database, Redis or the socket path can change.
    exclude: ['**/node_modules/**', ...(process.env.TEST_DB === 'postgres' ? SAME_ON_EVERY_LEG : [])],
    globalSetup: ['apps/api/test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each worker process runs its files one after another in the same module graph. Isolated, each
    // file re-imported the gateway's whole graph (Fastify, GraphQL, tRPC, MikroORM, the vendors'
    // SDKs): about 3 s a file, a third of the suite's time. Every file starts its own gateways,
    // databases and vendors and stops them in its afterAll; a test that changes process.env puts it
    // back. On the 2-core VM `npm test` went from about 15 to 11 minutes (embedded leg 6.5,
    // PostgreSQL leg 3.2). docs/decisions.md, "Toolchain".
    isolate: false,
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
