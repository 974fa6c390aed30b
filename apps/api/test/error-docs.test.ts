// docs/errors.md is generated from the error catalogue; this keeps it current, so a code
// added to apps/api/src/errors.ts without re-running the script fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../src/errors.ts';
import { errorDocsPath, renderErrorDocs } from '../../../scripts/error-docs.ts';

describe('the error catalogue docs', () => {
  it('match what node scripts/error-docs.ts writes from the catalogue today', () => {
    expect(readFileSync(errorDocsPath, 'utf8')).toBe(renderErrorDocs());
  });

  it('list every code with its status and type', () => {
    const doc = readFileSync(errorDocsPath, 'utf8');
    for (const [code, e] of Object.entries(errorCatalogue)) expect(doc).toContain(`| \`${code}\` | ${e.status} | \`${e.type}\` |`);
  });
});
