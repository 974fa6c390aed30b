// The SDK's generated API reference (docs/sdk/, TypeDoc from the sources' doc comments) is
// current, renders without a warning, and documents the tRPC client and the one error type.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTree, sdkDocsDir, staleSdkDocs } from '../../../scripts/sdk-docs.ts';

describe('docs/sdk', () => {
  it('is what TypeDoc renders from the SDK now', async () => {
    expect(await staleSdkDocs(), 'docs/sdk/ is stale: run npm run docs:sdk').toEqual([]);
  }, 180_000);

  it('documents the entries a user imports', () => {
    const files = readTree(sdkDocsDir);
    expect(files.get(join('trpc', 'functions', 'createTrpcClient.md'))).toContain('OptimizerTrpcClient');
    expect(files.get(join('index', 'classes', 'OptimizerError.md'))).toContain('rawBody');
    expect(files.get(join('index', 'classes', 'OptimizerClient.md'))).toContain('admin');
  });
});
