// Dashboard login and sessions (design §7) over real HTTP: the cookie's flags, the
// session acting as the tenant on control-plane routes, CSRF on cookie writes, id
// rotation, logout, and the session id never stored in clear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { sessionKey } from '../src/tenancy/sessions.ts';
import { authed, onPostgres, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

interface Tenant {
  api_key: string;
  account_id: string;
  workflow_id: string;
  email: string;
}

async function tenant(g: TestGateway = gw): Promise<Tenant> {
  const email = `login-${Math.floor(performance.now() * 1000)}-${process.hrtime.bigint()}@example.com`;
  const r = await fetch(`${g.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Acme', email }) });
  expect(r.status).toBe(201);
  return { ...((await r.json()) as Omit<Tenant, 'email'>), email };
}

function login(body: unknown, headers: Record<string, string> = {}, g: TestGateway = gw): Promise<Response> {
  return fetch(`${g.url}/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** Logs in and returns the Set-Cookie line and the `name=value` pair to send back. */
async function session(t: Tenant, headers: Record<string, string> = {}): Promise<{ setCookie: string; cookie: string; id: string }> {
  const r = await login({ email: t.email, api_key: t.api_key }, headers);
  expect(r.status).toBe(200);
  const setCookie = r.headers.get('set-cookie')!;
  const cookie = setCookie.split(';')[0]!;
  return { setCookie, cookie, id: cookie.slice(cookie.indexOf('=') + 1) };
}

const sameOrigin = { 'sec-fetch-site': 'same-origin' };

describe('login', () => {
  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie, plain-named over HTTP, and answers the tenant without the key', async () => {
    const t = await tenant();
    const r = await login({ email: t.email.toUpperCase(), api_key: t.api_key });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(JSON.parse(text)).toEqual({ account_id: t.account_id, workflow_id: t.workflow_id });
    expect(text).not.toContain(t.api_key);
    const c = r.headers.get('set-cookie')!;
    expect(c).toMatch(/^session=[A-Za-z0-9_-]{43}; /);
    const attrs = c.split('; ').slice(1);
    expect(attrs).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${12 * 3600}`]));
    expect(attrs).not.toContain('Secure');
    expect(gw.logs.join('')).not.toContain(t.api_key);
  });

  it('refuses a wrong key, a wrong email, and a key of another account with the same 401 and no hint', async () => {
    const a = await tenant();
    const b = await tenant();
    const answers = await Promise.all([
      login({ email: a.email, api_key: `${a.api_key.slice(0, -2)}xx` }),
      login({ email: 'nobody@example.com', api_key: a.api_key }),
      login({ email: a.email, api_key: b.api_key }),
      login({ email: a.email, api_key: 'not-a-key' }),
    ]);
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, cookie: r.headers.get('set-cookie'), body: await r.json() })));
    for (const x of bodies) {
      expect(x.status).toBe(401);
      expect(x.cookie).toBeNull();
    }
    expect(new Set(bodies.map((x) => JSON.stringify(x.body))).size).toBe(1);
    expect((bodies[0]!.body as { error: { code: string } }).error.code).toBe('invalid_login');
  });

  it('stores only a digest of the session id in the hot store', async () => {
    const t = await tenant();
    const { id } = await session(t);
    expect(await gw.services.hot.get(sessionKey(id))).toContain(t.account_id);
    expect(await gw.services.hot.get(`session:${id}`)).toBeNull();
    if (onPostgres) {
      const redis = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
      await redis.connect();
      try {
        const keys: string[] = [];
        const prefix = gw.services.config.REDIS_KEY_PREFIX;
        for await (const batch of redis.scanIterator({ MATCH: `${prefix}session:*`, COUNT: 1000 })) keys.push(...(Array.isArray(batch) ? batch : [batch]));
        expect(keys).toContain(`${prefix}${sessionKey(id)}`);
        expect(keys.some((k) => k.includes(id))).toBe(false);
        for (const k of keys.filter((k) => k === `${prefix}${sessionKey(id)}`)) expect(await redis.get(k)).not.toContain(id);
        expect(await redis.pTTL(`${prefix}${sessionKey(id)}`)).toBeGreaterThan(11 * 3_600_000);
      } finally {
        await redis.quit();
      }
    }
  });
});

describe('a session acts as its tenant on control-plane routes', () => {
  it('reads the tenant data with the cookie alone', async () => {
    const t = await tenant();
    const { cookie } = await session(t);
    const r = await fetch(`${gw.url}/v1/agents`, { headers: { cookie } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { data: { id: string }[] }).data.map((a) => a.id)).toEqual([t.workflow_id]);
    expect((await fetch(`${gw.url}/v1/workflows/${t.workflow_id}/events`, { headers: { cookie } })).status).toBe(200);
  });

  it("gives tenant B's cookie 404 for A's workflow ids", async () => {
    const a = await tenant();
    const b = await tenant();
    const { cookie } = await session(b);
    const events = await fetch(`${gw.url}/v1/workflows/${a.workflow_id}/events`, { headers: { cookie } });
    expect(events.status).toBe(404);
    expect(((await events.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await fetch(`${gw.url}/v1/agents/${a.workflow_id}/keys`, { headers: { cookie } })).status).toBe(404);
    const write = await fetch(`${gw.url}/v1/agents/${a.workflow_id}/keys`, { method: 'POST', headers: { cookie, ...sameOrigin } });
    expect(write.status).toBe(404);
  });

  it('keeps the data plane bearer-only', async () => {
    const t = await tenant();
    const { cookie } = await session(t);
    const r = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { cookie, ...sameOrigin, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }) });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
  });
});

describe('CSRF on cookie writes', () => {
  const agentNames = async (t: Tenant) =>
    ((await (await fetch(`${gw.url}/v1/agents`, { headers: authed(t.api_key) })).json()) as { data: { name: string }[] }).data.map((a) => a.name);

  it('refuses a cookie write with no same-site signal, or a cross-site one, with 403 and changes nothing', async () => {
    const t = await tenant();
    const { cookie } = await session(t);
    const body = JSON.stringify({ name: 'forged' });
    const attempts: Record<string, string>[] = [
      {},
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site', origin: 'http://127.0.0.1:1' },
    ];
    for (const extra of attempts) {
      const r = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...extra }, body });
      expect(r.status, JSON.stringify(extra)).toBe(403);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('csrf_rejected');
    }
    expect(await agentNames(t)).toEqual(['default']);
  });

  it('accepts a cookie write that says same-origin, or whose Origin is the gateway itself', async () => {
    const t = await tenant();
    const { cookie } = await session(t);
    const one = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...sameOrigin }, body: JSON.stringify({ name: 'by-fetch-site' }) });
    expect(one.status).toBe(201);
    const two = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', origin: gw.url }, body: JSON.stringify({ name: 'by-origin' }) });
    expect(two.status).toBe(201);
    expect(await agentNames(t)).toEqual(['default', 'by-fetch-site', 'by-origin']);
  });

  it('leaves bearer writes alone', async () => {
    const t = await tenant();
    const r = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: authed(t.api_key, { origin: 'https://evil.example' }), body: JSON.stringify({ name: 'bearer' }) });
    expect(r.status).toBe(201);
  });
});

describe('rotation and logout', () => {
  it('rotates the id on every login: the old cookie presented at login stops working', async () => {
    const t = await tenant();
    const first = await session(t);
    const second = await session(t, { cookie: first.cookie });
    expect(second.id).not.toBe(first.id);
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie: first.cookie } })).status).toBe(401);
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie: second.cookie } })).status).toBe(200);
    expect(await gw.services.hot.get(sessionKey(first.id))).toBeNull();
  });

  it('ends the session at logout and clears the cookie', async () => {
    const t = await tenant();
    const { cookie, id } = await session(t);
    const out = await fetch(`${gw.url}/v1/logout`, { method: 'POST', headers: { cookie, ...sameOrigin } });
    expect(out.status).toBe(204);
    const cleared = out.headers.get('set-cookie')!;
    expect(cleared).toMatch(/^session=; /);
    expect(cleared).toContain('Max-Age=0');
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie } })).status).toBe(401);
    expect(await gw.services.hot.get(sessionKey(id))).toBeNull();
  });

  it('refuses a cross-site logout', async () => {
    const t = await tenant();
    const { cookie } = await session(t);
    expect((await fetch(`${gw.url}/v1/logout`, { method: 'POST', headers: { cookie, 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie } })).status).toBe(200);
  });
});

describe('a revoked key', () => {
  it('ends the sessions opened with it', async () => {
    const t = await tenant();
    const added = (await (await fetch(`${gw.url}/v1/agents/${t.workflow_id}/keys`, { method: 'POST', headers: authed(t.api_key) })).json()) as { id: string; api_key: string };
    const { cookie, id } = await session({ ...t, api_key: added.api_key });
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie } })).status).toBe(200);
    const revoked = await fetch(`${gw.url}/v1/agents/${t.workflow_id}/keys/${added.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.api_key}` } });
    expect(revoked.status).toBeLessThan(300);
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie } })).status).toBe(401);
    expect(await gw.services.hot.get(sessionKey(id))).toBeNull();
    const other = await session(t);
    expect((await fetch(`${gw.url}/v1/agents`, { headers: { cookie: other.cookie } })).status).toBe(200);
  });
});

describe('behind a TLS-terminating proxy', () => {
  it('names the cookie __Host-session with Secure only when the proxy is trusted', async () => {
    const t = await tenant();
    const untrusted = await login({ email: t.email, api_key: t.api_key }, { 'x-forwarded-proto': 'https' });
    expect(untrusted.headers.get('set-cookie')).toMatch(/^session=/);

    const proxied = await startGateway({ env: { TRUST_PROXY: 'true', SESSION_TTL_MS: '600000' } });
    try {
      const p = await tenant(proxied);
      const r = await login({ email: p.email, api_key: p.api_key }, { 'x-forwarded-proto': 'https' }, proxied);
      const c = r.headers.get('set-cookie')!;
      expect(c).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}; /);
      expect(c.split('; ')).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Secure', 'Max-Age=600']));
      expect(c).not.toContain('Domain=');
      const cookie = c.split(';')[0]!;
      const https = { 'x-forwarded-proto': 'https' };
      expect((await fetch(`${proxied.url}/v1/agents`, { headers: { cookie, ...https } })).status).toBe(200);
      // The gateway's own origin is https:// behind the proxy: an http:// Origin is another origin.
      const host = new URL(proxied.url).host;
      const bad = await fetch(`${proxied.url}/v1/agents`, { method: 'POST', headers: { cookie, ...https, origin: `http://${host}`, 'content-type': 'application/json' }, body: '{"name":"x"}' });
      expect(bad.status).toBe(403);
      const good = await fetch(`${proxied.url}/v1/agents`, { method: 'POST', headers: { cookie, ...https, origin: `https://${host}`, 'content-type': 'application/json' }, body: '{"name":"y"}' });
      expect(good.status).toBe(201);
    } finally {
      await proxied.close();
    }
  });

  it('refuses a TRUST_PROXY or SESSION_TTL_MS it cannot read at boot', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ SESSION_TTL_MS: '5' })).toThrow(/SESSION_TTL_MS/);
  });
});
