// A database outage under a running gateway: every route that needs the database
// answers the catalogued 503 `unavailable` (REST, tRPC and GraphQL alike) instead of
// 500 `internal`, /readyz says which dependency is down and never its error text, and
// the gateway serves again once the database is back. Every background job (meter, sweeps,
// pollers) meets the outage too, each on a short interval here: none may reject unhandled,
// which in production kills the replica. The database is a real PostgreSQL reached through a
// local TCP proxy that the test closes and reopens.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CutProxy } from './support/cut-proxy.ts';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';

let db: TestDatabase;
let proxy: CutProxy;
let gw: TestGateway;
let tenant: { api_key: string; account_id: string };
const escaped: unknown[] = [];
const onEscape = (err: unknown) => escaped.push(err);

beforeAll(async () => {
  db = await testDatabase({ force: true });
  const real = new URL(db.url!);
  proxy = new CutProxy({ host: real.hostname, port: Number(real.port || 5432) });
  await proxy.open();
  const viaProxy = new URL(db.url!);
  viaProxy.port = String(proxy.port);
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  // every periodic job at (or near) its shortest interval, so each runs during the outage
  const often = { BILLING_SWEEP_MS: '100', MANAGED_RUN_SWEEP_MS: '50', ALERT_POLL_MS: '50', ALERT_SPEND_CHECK_MS: '50', RECORDING_SWEEP_MS: '1000' };
  gw = await startGateway({ database: { url: viaProxy.href, drop: async () => undefined }, env: often });
  tenant = await signup(gw);
});
afterAll(async () => {
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
  await gw?.close();
  await db?.drop();
});

const get = (path: string) => fetch(`${gw.url}${path}`, { headers: authed(tenant.api_key) });

describe('a database outage', () => {
  it('answers 503 unavailable on tenant reads, writes and signup, and /readyz names the database without its error', async () => {
    expect((await get('/v1/agents')).status).toBe(200);
    await proxy.cut();
    await sleep(100); // the pool notices its connections are gone

    const routes: [string, () => Promise<Response>][] = [
      ['GET /v1/agents', () => get('/v1/agents')],
      ['GET /v1/calls', () => get('/v1/calls')],
      ['GET /v1/workflows', () => get('/v1/workflows')],
      ['GET /v1/dashboard/savings', () => get('/v1/dashboard/savings')],
      ['POST /v1/signup', () => fetch(`${gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Down', email: 'down@example.com' }) })],
      ['POST /v1/agents', () => fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: authed(tenant.api_key), body: JSON.stringify({ name: 'during-outage' }) })],
    ];
    for (const [name, call] of routes) {
      const r = await call();
      const body = (await r.json()) as { error: { code: string; type: string } };
      expect({ name, status: r.status, code: body.error?.code }).toEqual({ name, status: 503, code: 'unavailable' });
      expect(r.headers.get('retry-after')).toBe('1');
    }

    const trpc = await fetch(`${gw.url}/trpc/calls.list`, { headers: authed(tenant.api_key) });
    expect(trpc.status).toBe(503);

    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(503);
    const text = await ready.text();
    expect(JSON.parse(text)).toMatchObject({ status: 'not_ready', checks: { database: 'down' } });
    expect(text).not.toMatch(/ECONNREFUSED|connect|127\.0\.0\.1|terminated|:\d{4,5}/);
    expect(gw.logs.join('')).not.toContain('"code":"internal"');
  });

  it('keeps every background job alive: a job that meets the outage logs and tries again, nothing rejects unhandled', async () => {
    await sleep(2_500); // every job above has had its turn at least twice, the recordings sweep too
    expect(escaped.map(String)).toEqual([]);
  });

  it('serves again once the database is back', async () => {
    await proxy.open();
    await expect
      .poll(async () => (await fetch(`${gw.url}/readyz`)).status, { timeout: 10_000, interval: 200 })
      .toBe(200);
    const r = await get('/v1/agents');
    expect(r.status).toBe(200);
  });
});
