// Writes docs/openapi.json from the gateway's code (apps/api/src/openapi/document.ts: the
// routes' zod schemas and the error catalogue), so the document describes what the server
// parses and answers.
//   node scripts/openapi.ts          rewrites the file
//   node scripts/openapi.ts --check  exits 1 when the file is not current
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../apps/api/src/openapi/document.ts';

export const openApiPath = join(import.meta.dirname, '..', 'docs', 'openapi.json');

export function renderOpenApi(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}

if (import.meta.main) {
  const want = renderOpenApi();
  if (process.argv.includes('--check')) {
    const have = readFileSync(openApiPath, 'utf8');
    if (have !== want) {
      console.error('docs/openapi.json is not current: run node scripts/openapi.ts');
      process.exit(1);
    }
  } else {
    writeFileSync(openApiPath, want);
  }
}
