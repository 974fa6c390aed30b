// Writes the GraphQL SDL to packages/schema/schema.graphql (run: node apps/api/src/graphql/print-schema.ts).
// A test fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schemaSdl } from './schema.ts';

export const sdlPath = fileURLToPath(new URL('../../../../packages/schema/schema.graphql', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(sdlPath, schemaSdl());
  process.stdout.write(`wrote ${sdlPath}\n`);
}
