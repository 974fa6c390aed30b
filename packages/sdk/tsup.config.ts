// Builds the published package: ESM and CJS JavaScript for Node 20+ and bundlers, and one
// declaration file per entry. @optimizer/schema (workspace-only) is bundled in, code and
// types, so the packed tarball installs alone; zod and tRPC's client stay dependencies, and
// the client libraries the helpers wrap stay optional peers.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', ai: 'src/ai/index.ts', langchain: 'src/langchain/index.ts', trpc: 'src/trpc/index.ts' },
  format: ['esm', 'cjs'],
  target: 'es2022',
  platform: 'neutral',
  tsconfig: 'tsconfig.build.json',
  // tRPC's declarations name Disposable and AsyncDisposable: the reference brings their lib
  // in, so a project on an ES2022 lib type-checks the package without skipLibCheck
  dts: { resolve: ['@optimizer/schema'], banner: '/// <reference lib="esnext.disposable" />' },
  noExternal: ['@optimizer/schema'],
  external: ['zod', '@trpc/client', '@trpc/server', 'ai', '@ai-sdk/openai', '@langchain/openai', '@langchain/core'],
  clean: true,
  sourcemap: false,
  // one chunk for what the entries share, so OptimizerError is one class whichever entry threw it
  splitting: true,
  treeshake: true,
});
