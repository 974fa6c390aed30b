// Circuit breakers per vendor AND per key: tenant A's failing key (401s, or a vendor that
// answers 5xx for that key alone) never changes tenant B's answers on the same vendor, and an
// open circuit answers with Retry-After (JSON and streaming requests alike).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CircuitBreaker, breakerKey } from '../src/providers/circuit-breaker.ts';
import { authed, signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

const A_BAD_KEY = 'sk-tenant-a-revoked-key';
const A_FAILING_KEY = 'sk-tenant-a-failing-key';

let rig: Rig;
let tenantA: { api_key: string };
let tenantB: { api_key: string };

beforeAll(async () => {
  rig = await startRig({
    env: { CIRCUIT_FAILURES: '3', CIRCUIT_COOLDOWN_MS: '60000', UPSTREAM_MAX_RETRIES: '0' },
    vendorOptions: { keyFaults: { [A_FAILING_KEY]: 500 } },
  });
  tenantA = await signup(rig.gw, 'A');
  tenantB = await signup(rig.gw, 'B');
});
afterAll(async () => {
  await rig?.close();
});

const ask = (key: string, extra: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(key, extra),
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], ...body }),
  });

describe('the circuit of a vendor is per key', () => {
  it('keeps apart the circuits of two keys on one vendor, and says when an open one lets a trial through', () => {
    let now = 0;
    const b = new CircuitBreaker({ threshold: 2, cooldownMs: 30_000, now: () => now });
    const a = breakerKey('openai', 'sk-a');
    const p = breakerKey('openai', 'sk-platform');
    expect(a).not.toContain('sk-a'); // a hash, never the key
    b.failure(a);
    b.failure(a);
    expect(b.allow(a)).toBe(false);
    expect(b.allow(p)).toBe(true);
    now = 12_500;
    expect(b.retryAfterS(a)).toBe(18);
    now = 30_000;
    expect(b.allow(a)).toBe(true); // the half-open trial
    b.settled(a); // it ended on the key's own refusal: no verdict, the next call may try
    expect(b.allow(a)).toBe(true);
  });

  it("tenant A's revoked key (401s) changes nothing for tenant B", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await ask(tenantA.api_key, { 'x-provider-key': A_BAD_KEY });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('upstream_auth');
    }
    expect((await ask(tenantB.api_key)).status).toBe(200);
    // and A's own 401s did not open A's circuit either: each reached the vendor
    rig.vendor.reset();
    expect((await ask(tenantA.api_key, { 'x-provider-key': A_BAD_KEY })).status).toBe(401);
    expect(rig.vendor.requests).toHaveLength(1);
  });

  it("a vendor failing for tenant A's key opens that key's circuit only; the open circuit answers Retry-After, streaming too", async () => {
    for (let i = 0; i < 3; i++) expect((await ask(tenantA.api_key, { 'x-provider-key': A_FAILING_KEY })).status).toBe(502);
    rig.vendor.reset();

    const open = await ask(tenantA.api_key, { 'x-provider-key': A_FAILING_KEY });
    expect(open.status).toBe(502);
    const retryAfter = Number(open.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const err = ((await open.json()) as { error: { code: string; message: string; type: string } }).error;
    expect(err).toMatchObject({ code: 'upstream_error', type: 'upstream_error' });
    expect(err.message).not.toContain(A_FAILING_KEY);

    const openStream = await ask(tenantA.api_key, { 'x-provider-key': A_FAILING_KEY }, { stream: true });
    expect(openStream.status).toBe(502);
    expect(Number(openStream.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await openStream.json()) as { error: { code: string } }).error.code).toBe('upstream_error');
    expect(rig.vendor.requests).toHaveLength(0); // the open circuit sent nothing

    // tenant B, on the platform's key, is served as before: JSON and stream
    const b = await ask(tenantB.api_key);
    expect(b.status).toBe(200);
    expect(((await b.json()) as { choices: unknown[] }).choices).toHaveLength(1);
    const bStream = await ask(tenantB.api_key, {}, { stream: true });
    expect(bStream.status).toBe(200);
    expect(await bStream.text()).toContain('data: [DONE]');
    // and so is tenant A itself on the platform's key: only its failing key's circuit is open
    expect((await ask(tenantA.api_key)).status).toBe(200);
    expect(rig.vendor.requests).toHaveLength(3);
  });
});
