// The fault suite at its small size (2 replicas, 12 requests a second, faults held 2 s), in the
// normal test run: every fault of `npm run test:faults` strikes a cluster of gateway replicas on a
// PostgreSQL and a Redis of the suite's own behind HAProxy, under load sent with the `openai` SDK,
// and every invariant is asserted after it (suite.ts). Needs root (tmpfs mounts, PostgreSQL run as
// its user), PostgreSQL's server binaries, redis-server and HAProxy (installed with apt-get when
// missing); without them the suite fails, it never skips.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureHaproxy } from '../scale/haproxy.ts';
import { unmountAll } from './env.ts';
import { describeScenario, FaultSuite, SCENARIOS, SMALL } from './suite.ts';

let suite: FaultSuite | undefined;
const started = Date.now();

beforeAll(async () => {
  process.once('exit', unmountAll);
  ensureHaproxy();
  suite = await FaultSuite.start({ ...SMALL, log: () => {} });
}, 240_000);

afterAll(async () => {
  await suite?.close();
  unmountAll();
  console.log(`fault suite (small): ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 60_000);

describe('faults under load', () => {
  // SIGTERM last: the replica it stops is left down, which saves a restart
  for (const [i, name] of SCENARIOS.entries()) {
    it(`${name}: ${describeScenario(name)}`, async () => {
      const r = await suite!.run(name, { restart: i < SCENARIOS.length - 1 });
      const failed = r.checks.filter((c) => !c.pass).map((c) => `${c.name}: ${c.detail}`);
      expect(failed.join('\n')).toBe('');
      const names = r.checks.map((c) => c.name);
      for (const invariant of ['no replica dies of it', 'no acknowledged call lost', 'none double-counted', 'totals add up', 'idempotency keys hold across replicas', 'serves after recovery']) expect(names).toContain(invariant);
      if (['sigkill', 'redis-drop', 'gateway-wal-full', 'sigterm-drain'].includes(name)) expect(names).toEqual(expect.arrayContaining(['balancer takes the sick replica out', 'survivors keep serving']));
    }, 150_000);
  }
});
