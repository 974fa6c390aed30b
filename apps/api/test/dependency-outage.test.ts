// A database outage under a running gateway: every route that needs the database
// answers the catalogued 503 `unavailable` (REST, tRPC and GraphQL alike) instead of
// 500 `internal`, /readyz says which dependency is down and never its error text, and
// the gateway serves again once the database is back. The database is a real
// PostgreSQL reached through a local TCP proxy that the test closes and reopens.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CutProxy } from './support/cut-proxy.ts';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';

let db: TestDatabase;
let proxy: CutProxy;
let gw: TestGateway;
let tenant: { api_key: string; account_id: string };

beforeAll(async () => {
  db = await testDatabase({ force: true });
  const real = new URL(db.url!);
  proxy = new CutProxy({ host: real.hostname, port: Number(real.port || 5432) });
  await proxy.open();
  const viaProxy = new URL(db.url!);
  viaProxy.port = String(proxy.port);
  gw = await startGateway({ database: { url: viaProxy.href, drop: async () => undefined } });
  tenant = await signup(gw);
});
afterAll(async () => {
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

  it('serves again once the database is back', async () => {
    await proxy.open();
    await expect
      .poll(async () => (await fetch(`${gw.url}/readyz`)).status, { timeout: 10_000, interval: 200 })
      .toBe(200);
    const r = await get('/v1/agents');
    expect(r.status).toBe(200);
  });
});
