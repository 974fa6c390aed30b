// Rate limits (design §10): requests and tokens per minute per key and per tenant, set by the
// tenant within the platform's ceiling; 429 `rate_limited` with Retry-After; one count shared by
// two gateways on one Redis (one with the socket path, one through node:http and Fastify); and
// with Redis unreachable, completions fail closed (503) rather than run uncounted.
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateWait, RateCounters } from '../src/hot/rate-window.ts';
import { RateLimitedError } from '../src/limits/rate-limits.ts';
import { toGraphQLError } from '../src/graphql/plugin.ts';
import { toTrpcError } from '../src/trpc/router.ts';
import { CutProxy } from './support/cut-proxy.ts';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';
import { PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

const CEILING = { RATE_LIMIT_CEILING_RPM: '1000', RATE_LIMIT_CEILING_TPM: '1000000' };

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ env: CEILING });
  rig.vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
});
afterAll(async () => {
  await rig?.close();
});

const putLimits = (gw: { url: string }, key: string, body: unknown) => fetch(`${gw.url}/v1/settings/limits`, { method: 'PUT', headers: authed(key), body: JSON.stringify(body) });
const complete = (gw: { url: string }, key: string, content = `hello ${randomBytes(4).toString('hex')}`) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body: JSON.stringify({ model: 'gpt-4.1-mini', max_tokens: 50, messages: [{ role: 'user', content }] }) });
const statuses = (rs: Response[]) => rs.map((r) => r.status).sort();

/** Keeps a burst of calls inside one minute, so a sliding window's weighting cannot blur an exact count. */
async function awayFromMinuteEdge(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 50_000) await new Promise((r) => setTimeout(r, 60_000 - into + 50));
}

describe('the sliding window', () => {
  it('weights the previous minute by the share of it still inside the window and says how long until a call fits', () => {
    expect(rateWait(10, 1, 0, 9, 0)).toBe(0);
    expect(rateWait(10, 1, 0, 10, 15_000)).toBe(51_000); // 45 s to the next minute, where this one's 10 weigh 0.9 after 6 s
    expect(rateWait(10, 1, 10, 5, 30_000)).toBeCloseTo(6_000, 6); // 10 × (1 − t/60) + 5 + 1 ≤ 10 from t = 36 s
    expect(rateWait(10, 11, 0, 0, 0)).toBe(-1); // one call larger than the limit never fits
    const c = new RateCounters();
    const t0 = 1_000 * 60_000;
    const limit = [{ key: 'k', limit: 3, cost: 1 }];
    for (let i = 0; i < 3; i++) {
      expect(c.check(limit, t0 + i)).toBeNull();
      c.count(limit, t0 + i);
    }
    expect(c.check(limit, t0 + 10)).toEqual({ index: 0, waitMs: 60_000 - 10 + 20_000 });
    expect(c.check(limit, t0 + 60_000 + 30_000)).toBeNull(); // half a minute on: 3 × 0.5 + 1 ≤ 3
    c.adjust([{ key: 'k', window: t0 / 60_000, delta: -3 }]);
    expect(c.check(limit, t0 + 20)).toBeNull();
  });
});

describe('the 429 in the other doors\' shapes', () => {
  it('carries its catalogue code and its wait (seconds) on GraphQL, as REST carries Retry-After', () => {
    const e = toGraphQLError(new RateLimitedError('Rate limit of 3 requests per minute for this tenant reached.', 17, 'requests'));
    expect(e.extensions).toMatchObject({ apiCode: 'rate_limited', status: 429, retryAfter: 17 });
    expect(toTrpcError(new RateLimitedError('x', 17, 'requests')).code).toBe('TOO_MANY_REQUESTS');
  });
});

describe('PUT /v1/settings/limits', () => {
  it('stores limits within the ceiling, refuses one above it with 422 naming the field, and a key that is not the tenant’s with 404', async () => {
    const t = await signup(rig.gw);
    const other = await signup(rig.gw);
    const initial = await (await fetch(`${rig.gw.url}/v1/settings/limits`, { headers: authed(t.api_key) })).json();
    expect(initial).toEqual({ tenant: { requests_per_minute: null, tokens_per_minute: null }, keys: [], ceiling: { requests_per_minute: 1000, tokens_per_minute: 1_000_000 } });

    const above = await putLimits(rig.gw, t.api_key, { tenant: { requests_per_minute: 1001 } });
    expect(above.status).toBe(422);
    const err = ((await above.json()) as { error: { code: string; param: string; message: string } }).error;
    expect(err).toMatchObject({ code: 'validation_failed', param: 'tenant.requests_per_minute' });
    expect(err.message).toContain('ceiling of 1000');
    const keyAbove = await putLimits(rig.gw, t.api_key, { keys: [{ key_id: 'key_x', tokens_per_minute: 2_000_000 }] });
    expect(keyAbove.status).toBe(422);
    expect(((await keyAbove.json()) as { error: { param: string } }).error.param).toBe('keys.0.tokens_per_minute');
    expect((await putLimits(rig.gw, t.api_key, { tenant: { requests_per_minute: 0 } })).status).toBe(422);

    const [otherKey] = (await (await fetch(`${rig.gw.url}/v1/agents/${other.workflow_id}/keys`, { headers: authed(other.api_key) })).json()).data as { id: string }[];
    const foreign = await putLimits(rig.gw, t.api_key, { keys: [{ key_id: otherKey!.id, requests_per_minute: 5 }] });
    expect(foreign.status).toBe(404);

    const ok = await putLimits(rig.gw, t.api_key, { tenant: { requests_per_minute: 1000, tokens_per_minute: 5000 } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ tenant: { requests_per_minute: 1000, tokens_per_minute: 5000 }, keys: [] });
    expect(((await (await fetch(`${rig.gw.url}/v1/settings/limits`, { headers: authed(other.api_key) })).json()) as { tenant: unknown }).tenant).toEqual({ requests_per_minute: null, tokens_per_minute: null });
  });
});

describe('a rate-limited tenant', { timeout: 60_000 }, () => {
  it('answers 429 rate_limited with Retry-After past its requests per minute, before any vendor call, and the official SDK reads it', async () => {
    const t = await signup(rig.gw);
    expect((await putLimits(rig.gw, t.api_key, { tenant: { requests_per_minute: 3 } })).status).toBe(200);
    await awayFromMinuteEdge();
    for (let i = 0; i < 3; i++) expect((await complete(rig.gw, t.api_key)).status).toBe(200);
    const before = rig.vendor.requests.length;
    const r = await complete(rig.gw, t.api_key);
    expect(r.status).toBe(429);
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    const body = (await r.json()) as { error: { code: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    expect(body.error.message).toContain('3 requests per minute for this tenant');
    expect(rig.vendor.requests.length).toBe(before);

    const client = new OpenAI({ baseURL: `${rig.gw.url}/v1`, apiKey: t.api_key, maxRetries: 0 });
    const e = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'x' }] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
    // another tenant is not held back
    expect((await complete(rig.gw, rig.tenant.api_key)).status).toBe(200);
  });

  it('holds a key to its own limit below the tenant’s while the tenant’s other keys go on', async () => {
    const t = await signup(rig.gw);
    const made = (await (await fetch(`${rig.gw.url}/v1/agents/${t.workflow_id}/keys`, { method: 'POST', headers: authed(t.api_key) })).json()) as { id: string; api_key: string };
    const limited = made.api_key;
    expect((await putLimits(rig.gw, t.api_key, { tenant: { requests_per_minute: 10 }, keys: [{ key_id: made.id, requests_per_minute: 2 }] })).status).toBe(200);
    await awayFromMinuteEdge();
    expect(statuses(await Promise.all([0, 1].map(() => complete(rig.gw, limited))))).toEqual([200, 200]);
    const r = await complete(rig.gw, limited);
    expect(r.status).toBe(429);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain('2 requests per minute for this key');
    // the tenant's first key has 8 of the tenant's 10 left
    expect(statuses(await Promise.all(Array.from({ length: 9 }, () => complete(rig.gw, t.api_key))))).toEqual([...Array(8).fill(200), 429]);
  });

  it('reserves the prompt and max_tokens before dispatch, settles them to the answer’s usage, and refuses a prompt larger than the limit outright', async () => {
    const t = await signup(rig.gw);
    // each call uses 60 tokens (the vendor's usage); it reserves its prompt's bound (under 40) plus its max_tokens (50)
    expect((await putLimits(rig.gw, t.api_key, { tenant: { tokens_per_minute: 150 } })).status).toBe(200);
    await awayFromMinuteEdge();
    expect((await complete(rig.gw, t.api_key, 'one')).status).toBe(200);
    expect((await complete(rig.gw, t.api_key, 'two')).status).toBe(200); // 60 settled + its reservation fit under 150
    const refused = await complete(rig.gw, t.api_key, 'three'); // 120 settled + what it may use (about 60) would pass 150
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('150 tokens per minute');

    const u = await signup(rig.gw);
    expect((await putLimits(rig.gw, u.api_key, { tenant: { tokens_per_minute: 100 } })).status).toBe(200);
    const huge = await complete(rig.gw, u.api_key, 'word '.repeat(400));
    expect(huge.status).toBe(429);
    expect(huge.headers.get('retry-after')).toBe('60');
    expect(((await huge.json()) as { error: { message: string } }).error.message).toMatch(/exceed the limit of 100 tokens per minute/);
    expect((await complete(rig.gw, u.api_key, 'short')).status).toBe(200);
  });
});

describe('two gateways on one Redis', { timeout: 120_000 }, () => {
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    db = await testDatabase({ force: true });
    const env = { ...CEILING, OPENAI_BASE_URL: rig.vendor.url, OPENAI_API_KEY: PLATFORM_KEY, OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'), ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}` };
    a = await startGateway({ database: db, env: { ...env, FAST_PATH: 'on' } });
    b = await startGateway({ database: db, env: { ...env, FAST_PATH: 'off' } });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('share one count: 20 parallel calls split over both against a limit of 7 serve exactly 7, through the socket path and node:http alike', async () => {
    const t = await signup(a);
    expect((await putLimits(a, t.api_key, { tenant: { requests_per_minute: 7 } })).status).toBe(200);
    // the setting reaches the other replica by its notice
    const end = Date.now() + 10_000;
    while (((await (await fetch(`${b.url}/v1/settings/limits`, { headers: authed(t.api_key) })).json()) as { tenant: { requests_per_minute: number | null } }).tenant.requests_per_minute !== 7) {
      if (Date.now() > end) throw new Error('the limit did not reach the second gateway');
      await new Promise((r) => setTimeout(r, 50));
    }
    await awayFromMinuteEdge();
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => complete(i % 2 ? a : b, t.api_key)));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(7);
    const limited = rs.filter((r) => r.status === 429);
    expect(limited).toHaveLength(13);
    for (const r of limited) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // both doors refused some
    expect(new Set(rs.map((r, i) => `${i % 2}:${r.status}`))).toContain('0:429');
    expect(new Set(rs.map((r, i) => `${i % 2}:${r.status}`))).toContain('1:429');
  });

  it('send the budget script by its hash, and whole again when Redis has forgotten it (SCRIPT FLUSH)', async () => {
    const t = await signup(a);
    expect((await complete(a, t.api_key)).status).toBe(200);
    const redis = createClient({ url: 'redis://127.0.0.1:6379' });
    await redis.connect();
    try {
      await redis.scriptFlush();
    } finally {
      await redis.quit();
    }
    expect((await complete(b, t.api_key)).status).toBe(200);
    expect((await complete(a, t.api_key)).status).toBe(200);
  });
});

describe('Redis unreachable', { timeout: 60_000 }, () => {
  it('fails closed: completions answer 503 unavailable with Retry-After and reach no vendor, and serve again once Redis is back', async () => {
    const proxy = new CutProxy({ host: '127.0.0.1', port: 6379 });
    await proxy.open();
    const gw = await startGateway({ env: { ...CEILING, OPENAI_BASE_URL: rig.vendor.url, OPENAI_API_KEY: PLATFORM_KEY, REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
    try {
      const t = await signup(gw);
      expect((await putLimits(gw, t.api_key, { tenant: { requests_per_minute: 100 } })).status).toBe(200);
      expect((await complete(gw, t.api_key)).status).toBe(200);
      await proxy.cut();
      const before = rig.vendor.requests.length;
      for (let i = 0; i < 3; i++) {
        const r = await complete(gw, t.api_key);
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toBe('1');
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('unavailable');
      }
      expect(rig.vendor.requests.length).toBe(before);
      await proxy.open();
      const end = Date.now() + 15_000;
      let status = 0;
      while (status !== 200 && Date.now() < end) {
        status = (await complete(gw, t.api_key)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
