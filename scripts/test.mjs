#!/usr/bin/env node
// The whole test suite, twice: on the embedded PGlite with the socket path off (every
// completion through node:http and Fastify), and on the machine's PostgreSQL with Redis
// with the socket path on, as production runs. So each run of `npm test` proves the whole
// suite on both doors of the hot route. Prints one closing line with the totals of both legs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', '.bin', 'vitest');
const extra = process.argv.slice(2);
// TEST_FAST_PATH=off (npm run test:node-http) turns the socket path off on both legs.
const legs = [
  { name: 'pglite', env: { TEST_DB: 'pglite', TEST_FAST_PATH: process.env.TEST_FAST_PATH ?? 'off' } },
  { name: 'postgres+redis', env: { TEST_DB: 'postgres', TEST_FAST_PATH: process.env.TEST_FAST_PATH ?? 'on' } },
];
const only = process.env.TEST_LEG;
const firstLine = (text) => String(text ?? '').split('\n').find((l) => l.trim()) ?? '';
const out = mkdtempSync(join(tmpdir(), 'optimizer-vitest-'));
let passed = 0;
let failed = 0;
let skipped = 0;
/** Files that failed as a whole (an import or a beforeAll that threw): their tests count as neither passed nor failed. */
let brokenFiles = 0;
let status = 0;
/** What failed, by leg, repeated at the end: a long run's failures are otherwise pages above its last line. */
const failures = [];
for (const leg of legs) {
  if (only && only !== leg.name) continue;
  const door = leg.env.TEST_FAST_PATH === 'off' ? ', socket path off' : ', socket path on';
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
    for (const f of j.testResults ?? []) {
      const file = f.name.startsWith(root) ? f.name.slice(root.length + 1) : f.name;
      const tests = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
      for (const t of tests) failures.push(`${leg.name}: ${file} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
      if (f.status === 'failed' && tests.length === 0) {
        brokenFiles += 1;
        failures.push(`${leg.name}: ${file} failed to run: ${firstLine(f.message)}`);
      }
    }
  } catch {
    failed += 1;
    failures.push(`${leg.name}: no report (vitest exited ${r.status})`);
  }
  if (r.status !== 0) status = r.status ?? 1;
}
rmSync(out, { recursive: true, force: true });
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${brokenFiles ? `, ${brokenFiles} test files failed to run` : ''}`);
process.exit(status || (failed || brokenFiles ? 1 : 0));
