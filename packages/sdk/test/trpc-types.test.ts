// The SDK's tRPC types are the server's: packages/sdk/src/trpc/app-router.gen.ts is
// generated from apps/api/src/trpc/router.ts (scripts/sdk-trpc-types.ts) and must be current.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderTrpcTypes, trpcTypesPath } from '../../../scripts/sdk-trpc-types.ts';

describe('the SDK\'s AppRouter types', () => {
  it('are generated from the server\'s router and current', () => {
    const want = renderTrpcTypes();
    expect(want).toMatch(/"workflow\.steps": \{\n {4}id: string;\n {2}\};/);
    expect(want).not.toMatch(/import\("|Services|TrpcContext/);
    expect(readFileSync(trpcTypesPath, 'utf8'), 'app-router.gen.ts is stale: run node scripts/sdk-trpc-types.ts').toBe(want);
  }, 120_000);
});
