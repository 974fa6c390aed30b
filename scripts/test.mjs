#!/usr/bin/env node
// The whole test suite, once: one vitest run in which every file runs exactly once. Files run
// on the machine's PostgreSQL with Redis and the socket path on, as production runs; the few
// whose subject is the embedded default (listed with their reasons in vitest.config.ts, ON_PGLITE)
// run on PGlite. The tests that compare the two doors of the hot route (the socket path and
// node:http with Fastify) start a gateway of each kind themselves. Prints one closing line with
// the totals and repeats what failed.
//
// For a developer: TEST_DB=pglite (or TEST_LEG=pglite, which also turns the socket path off, as
// the old embedded leg ran) puts every file on the embedded database, so no server is needed;
// TEST_DB=postgres puts every file on PostgreSQL + Redis; TEST_FAST_PATH=off (npm run
// test:node-http) sends every test gateway's completions through node:http and Fastify.
// Arguments are passed to vitest (a file name, -t 'name', ...).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', '.bin', 'vitest');
const extra = process.argv.slice(2);
const LEGS = {
  pglite: { TEST_DB: 'pglite', TEST_FAST_PATH: 'off' },
  'postgres+redis': { TEST_DB: 'postgres', TEST_FAST_PATH: 'on' },
};
const leg = process.env.TEST_LEG;
if (leg && !LEGS[leg]) {
  console.error(`TEST_LEG=${leg} is not one of: ${Object.keys(LEGS).join(', ')} (leave it unset for the whole suite)`);
  process.exit(2);
}
// what the caller set wins over the leg's defaults
const env = { ...process.env, ...(leg ? { ...LEGS[leg], ...pick(process.env, ['TEST_DB', 'TEST_FAST_PATH']) } : {}) };
const firstLine = (text) => String(text ?? '').split('\n').find((l) => l.trim()) ?? '';
const out = mkdtempSync(join(tmpdir(), 'optimizer-vitest-'));
const report = join(out, 'report.json');
const door = env.TEST_FAST_PATH === 'off' ? 'socket path off' : 'socket path on';
const where = env.TEST_DB === 'pglite' ? 'every file on PGlite' : env.TEST_DB === 'postgres' ? 'every file on PostgreSQL + Redis' : 'PostgreSQL + Redis, the embedded default’s own files on PGlite';
console.log(`\n=== the test suite: ${where}, ${door} ===`);
const started = Date.now();
const r = spawnSync(vitest, ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra], { cwd: root, stdio: 'inherit', env });
let passed = 0;
let failed = 0;
let skipped = 0;
/** Files that failed as a whole (an import or a beforeAll that threw): their tests count as neither passed nor failed. */
let brokenFiles = 0;
/** What failed, repeated at the end: a long run's failures are otherwise pages above its last line. */
const failures = [];
try {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  passed = j.numPassedTests;
  failed = j.numFailedTests;
  skipped = j.numPendingTests + j.numTodoTests;
  const seen = new Set();
  for (const f of j.testResults ?? []) {
    const file = f.name.startsWith(root) ? f.name.slice(root.length + 1) : f.name;
    // each file once: a file two projects both take would double the run and prove nothing more
    if (seen.has(file)) failures.push(`${file} ran twice (two vitest projects include it)`);
    seen.add(file);
    const tests = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const t of tests) failures.push(`${file} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (f.status === 'failed' && tests.length === 0) {
      brokenFiles += 1;
      failures.push(`${file} failed to run: ${firstLine(f.message)}`);
    }
  }
} catch {
  failed += 1;
  failures.push(`no report (vitest exited ${r.status})`);
}
rmSync(out, { recursive: true, force: true });
if (failures.some((f) => f.endsWith('(two vitest projects include it)'))) failed += 1;
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
const minutes = (Date.now() - started) / 60_000;
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${brokenFiles ? `, ${brokenFiles} test files failed to run` : ''} in ${minutes.toFixed(1)} min`);
process.exit(r.status || (failed || brokenFiles ? 1 : 0));

function pick(from, names) {
  return Object.fromEntries(names.filter((n) => from[n] !== undefined).map((n) => [n, from[n]]));
}
