// Two replicas on one PostgreSQL + Redis behind HAProxy, a few seconds of the soak's mix at a low
// rate (JSON, streams, routed calls and their outcomes, cached repeats, Idempotency-Key retries):
// every acknowledged call is listed exactly once and the dashboard's totals add up. Needs haproxy
// (installed with apt-get when missing: the test fails, never skips, when that is impossible).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePool, openLoop, type Endpoint } from '../overhead/load.ts';
import { killAll } from '../overhead/procs.ts';
import { startMock, type Mock } from '../overhead/targets.ts';
import { ensureHaproxy, startBalancer, type Balancer } from './haproxy.ts';
import { checkLedger } from './ledger.ts';
import { COMPLETIONS, flushAll, readyProbe } from './measure.ts';
import { clusterSecrets, growTo, type Replica } from './replicas.ts';
import { openShared, type SharedState } from './shared.ts';
import { api, makeAgents, signup } from './tenant.ts';
import { mixedTraffic } from './traffic.ts';

const RATE = 25;
const SECONDS = 3;

let mock: Mock | undefined;
let shared: SharedState | undefined;
let balancer: Balancer | undefined;
const replicas: Replica[] = [];

beforeAll(async () => {
  try {
    ensureHaproxy();
  } catch (e) {
    throw new Error(`this test needs HAProxy from Debian's packages and could not install it: ${(e as Error).message}`);
  }
  mock = await startMock({ core: undefined, vendorLatencyMs: 0, chunkDelayMs: 0, model: 'gpt-4o-mini' });
  shared = await openShared({
    pgAdminUrl: process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisBase: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisDb: 14,
  });
  await growTo(replicas, 2, { databaseUrl: shared.databaseUrl, redisUrl: shared.redisUrl, vendorUrl: mock.url, core: undefined }, clusterSecrets());
  balancer = await startBalancer(replicas.map((r) => r.hostPort), readyProbe);
}, 60_000);

afterAll(async () => {
  await balancer?.stop();
  await Promise.all(replicas.map((r) => r.stop()));
  await killAll();
  await shared?.close();
}, 30_000);

describe('replicas behind a balancer', () => {
  it('lists every acknowledged call exactly once, replays included, and the totals add up', async () => {
    const origin = balancer!.origin;
    const owner = await signup(origin);
    await api(origin, owner, 'PUT', '/v1/settings/routing', { cache: { exact: true } });
    const agents = await makeAgents(origin, owner, RATE * SECONDS, 'exactly-once');
    const traffic = mixedTraffic(agents, 7_000_000, origin);
    const endpoint: Endpoint = { origin, path: COMPLETIONS, headers: {} };
    const pool = makePool(endpoint, { connections: 16, timeoutMs: 15_000 });
    try {
      const run = await openLoop(pool, endpoint, {
        ratePerSec: RATE,
        durationMs: SECONDS * 1000,
        stream: false,
        model: 'gpt-4o-mini',
        maxInFlight: 500,
        drainMs: 10_000,
        firstId: 0,
        request: (i) => traffic.request(i),
        onExchange: (i, s, r) => traffic.onExchange(i, s, r),
      });
      await traffic.settled();
      expect(run.errors).toEqual({});
      expect(run.ok).toBe(RATE * SECONDS);
    } finally {
      await pool.destroy();
    }
    expect(traffic.faults).toEqual({});
    expect(traffic.kinds.retry).toBeGreaterThan(0);
    await flushAll(replicas, owner);
    const ledger = await checkLedger(origin, owner, agents, traffic.acked);
    expect(ledger.problems).toEqual([]);
    expect(ledger.lost).toBe(0);
    expect(ledger.doubleCounted).toBe(0);
    expect(ledger.totalsMatch).toBe(true);
    // a retry replays its first answer: fewer calls listed than requests acknowledged
    expect(ledger.listed).toBe(ledger.acknowledged);
    expect(ledger.listed).toBeLessThan(RATE * SECONDS);
  }, 30_000);
});
