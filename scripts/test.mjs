#!/usr/bin/env node
// The whole test suite, twice: on the embedded PGlite, and on the machine's
// PostgreSQL with Redis. Prints one closing line with the totals of both legs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', '.bin', 'vitest');
const extra = process.argv.slice(2);
const legs = [
  { name: 'pglite', env: { TEST_DB: 'pglite' } },
  { name: 'postgres+redis', env: { TEST_DB: 'postgres' } },
];
const only = process.env.TEST_LEG;
const out = mkdtempSync(join(tmpdir(), 'optimizer-vitest-'));
let passed = 0;
let failed = 0;
let skipped = 0;
/** Files that failed as a whole (an import or a beforeAll that threw): their tests count as neither passed nor failed. */
let brokenFiles = 0;
let status = 0;
for (const leg of legs) {
  if (only && only !== leg.name) continue;
  // TEST_FAST_PATH=off (npm run test:node-http): every test gateway with the socket path off
  const door = process.env.TEST_FAST_PATH === 'off' ? ', socket path off' : '';
  console.log(`\n=== test leg: ${leg.name}${door} ===`);
  const report = join(out, `${leg.name}.json`);
  const r = spawnSync(vitest, ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...leg.env },
  });
  try {
    const j = JSON.parse(readFileSync(report, 'utf8'));
    passed += j.numPassedTests;
    failed += j.numFailedTests;
    skipped += j.numPendingTests + j.numTodoTests;
    brokenFiles += (j.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).every((a) => a.status !== 'failed')).length;
  } catch {
    failed += 1;
  }
  if (r.status !== 0) status = r.status ?? 1;
}
rmSync(out, { recursive: true, force: true });
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${brokenFiles ? `, ${brokenFiles} test files failed to run` : ''}`);
process.exit(status || (failed || brokenFiles ? 1 : 0));
