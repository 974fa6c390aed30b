// Retries before the first byte, honouring Retry-After, then failover along the
// cross-vendor chain with a `failover` event; every attempt recorded.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { failoverProfile } from './support/profiles.ts';
import { backoffMs } from '../src/pipeline/dispatch-policy.ts';
import { CircuitBreaker } from '../src/providers/circuit-breaker.ts';
import { authed } from './support/gateway.ts';
import { allowAnyFailover, PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

describe('backoff', () => {
  it('grows exponentially with full jitter and honours a short Retry-After', () => {
    for (let i = 0; i < 50; i++) {
      expect(backoffMs(0, undefined)).toBeLessThanOrEqual(100);
      expect(backoffMs(3, undefined)).toBeLessThanOrEqual(800);
      expect(backoffMs(10, undefined)).toBeLessThanOrEqual(2000);
    }
    expect(backoffMs(0, '1')).toBe(1000);
    expect(backoffMs(0, '60')).toBeNull();
  });
});

describe('the circuit breaker', () => {
  it('opens after consecutive failures, lets one trial through after the cool-down, and closes on success', () => {
    let now = 0;
    const b = new CircuitBreaker({ threshold: 3, cooldownMs: 1000, now: () => now });
    b.failure('x');
    b.failure('x');
    expect(b.allow('x')).toBe(true);
    b.failure('x');
    expect(b.allow('x')).toBe(false);
    expect(b.allow('y')).toBe(true);
    now = 1001;
    expect(b.allow('x')).toBe(true); // the trial
    expect(b.allow('x')).toBe(false); // only one at a time
    b.failure('x');
    expect(b.allow('x')).toBe(false); // opened again
    now = 2100;
    expect(b.allow('x')).toBe(true);
    b.success('x');
    expect(b.allow('x')).toBe(true);
    expect(b.allow('x')).toBe(true);
  });

  it('keeps a failing vendor out so the next calls go straight to the failover vendor', async () => {
    const main = await startOpenAIMock({ apiKey: PLATFORM_KEY });
    const spare = await startOpenAIMock({ apiKey: 'sk-spare' });
    const r = await startRig({ env: { OPENAI_BASE_URL: main.url, MISTRAL_BASE_URL: spare.url, MISTRAL_API_KEY: 'sk-spare', CIRCUIT_FAILURES: '3', CIRCUIT_COOLDOWN_MS: '60000', UPSTREAM_MAX_RETRIES: '0' } });
    try {
      const conn = r.gw.services.db.em().getConnection();
      for (const p of [failoverProfile('primary-model', 'openai', ['backup-model']), failoverProfile('backup-model', 'mistral', [])]) {
        await conn.execute(`insert into catalog_models (model, provider, profile, disabled) values (?, ?, ?, false)`, [p.model, p.provider, JSON.stringify(p)]);
      }
      await r.gw.services.catalog.changed();
      await allowAnyFailover(r.gw.url, r.tenant.api_key); // backup-model is another model, not primary-model elsewhere
      await main.close();
      const ask = () => fetch(`${r.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(r.tenant.api_key), body: JSON.stringify({ model: 'primary-model', messages: [{ role: 'user', content: 'x' }] }) });
      for (let i = 0; i < 5; i++) expect((await ask()).status).toBe(200);
      // three calls each tried openai once, then the circuit opened: the last two went straight to the spare
      const acts = (await (await fetch(`${r.gw.url}/v1/activity?limit=50`, { headers: authed(r.tenant.api_key) })).json()) as { data: { provider: string }[] };
      expect(acts.data.filter((a) => a.provider === 'openai')).toHaveLength(3);
      expect(acts.data.filter((a) => a.provider === 'mistral')).toHaveLength(5);
    } finally {
      await r.gw.close();
      await spare.close();
    }
  });
});

let rig: Rig;
let backup: MockVendor;


beforeAll(async () => {
  backup = await startOpenAIMock({ apiKey: 'sk-backup-vendor' });
  rig = await startRig({ env: { MISTRAL_BASE_URL: backup.url, MISTRAL_API_KEY: 'sk-backup-vendor', CIRCUIT_FAILURES: '1000' } });
  const conn = rig.gw.services.db.em().getConnection();
  for (const p of [failoverProfile('primary-model', 'openai', ['backup-model']), failoverProfile('backup-model', 'mistral', [])]) {
    await conn.execute(`insert into catalog_models (model, provider, profile, disabled) values (?, ?, ?, false)`, [p.model, p.provider, JSON.stringify(p)]);
  }
  await rig.gw.services.catalog.changed();
  await allowAnyFailover(rig.gw.url, rig.tenant.api_key); // backup-model is another model, not primary-model elsewhere
});
afterAll(async () => {
  await rig.close();
  await backup.close();
});
beforeEach(() => {
  rig.vendor.reset();
  backup.reset();
});

async function activityFor(callId: string) {
  const r = (await (await fetch(`${rig.gw.url}/v1/activity?limit=50`, { headers: authed(rig.tenant.api_key) })).json()) as { data: any[] };
  return r.data.filter((a) => a.call_id === callId).sort((a, b) => a.attempt - b.attempt);
}

describe('retries', () => {
  it('retries a vendor 503 before the first byte and serves the retry, recording both attempts', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'flaky', messages: [{ role: 'user', content: 'x' }] }) });
    expect(r.status).toBe(200);
    const acts = await activityFor(r.headers.get('x-optimizer-call-id')!);
    expect(acts.map((a) => [a.status, a.outcome])).toEqual([
      [503, 'error'],
      [200, 'ok'],
    ]);
  });

  it('waits out a short Retry-After before retrying a 429', async () => {
    const t0 = performance.now();
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'rate-limited', messages: [{ role: 'user', content: 'x' }] }) });
    expect(r.status).toBe(429);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1900); // two retries, Retry-After: 1 each
    expect(rig.vendor.requests).toHaveLength(3);
  });

  it('does not retry a request the vendor refused as invalid', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(rig.tenant.api_key),
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'tool', content: 'orphan result' }] }),
    });
    expect(r.status).toBe(400);
    expect(rig.vendor.requests).toHaveLength(1);
  });
});

describe('cross-vendor failover', () => {
  it('fails over to the next vendor in the chain when the first is down, and writes a failover event', async () => {
    const down = rig.vendor;
    const url = down.url;
    await down.close(); // connection refused from now on
    try {
      const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'primary-model', messages: [{ role: 'user', content: 'still there?' }] }) });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-optimizer-model')).toBe('backup-model');
      const body = (await r.json()) as { optimizer: { baseline_cost: number; actual_cost: number } };
      expect(backup.requests).toHaveLength(1);
      expect(backup.requests[0]!.body.model).toBe('backup-model');
      expect(backup.requests[0]!.headers.authorization).toBe('Bearer sk-backup-vendor');
      const callId = r.headers.get('x-optimizer-call-id')!;
      const acts = await activityFor(callId);
      expect(acts.map((a) => [a.provider, a.outcome])).toEqual([
        ['openai', 'error'],
        ['openai', 'error'],
        ['openai', 'error'],
        ['mistral', 'ok'],
      ]);
      const calls = (await (await fetch(`${rig.gw.url}/v1/calls?limit=1`, { headers: authed(rig.tenant.api_key) })).json()) as { data: any[] };
      expect(calls.data[0]).toMatchObject({ id: callId, model: 'primary-model', routed_model: 'backup-model', provider: 'mistral' });
      expect(calls.data[0].reasons.join('\n')).toContain('failed over from primary-model (openai) to backup-model (mistral)');
      // priced on the pinned model as the baseline (same prices here), on the backup as served
      expect(body.optimizer.baseline_cost).toBe(body.optimizer.actual_cost);
      const events = (await (await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/events`, { headers: authed(rig.tenant.api_key) })).json()) as { data: any[] };
      expect(events.data[0]).toMatchObject({ kind: 'failover', call_id: callId, from: 'primary-model', to: 'backup-model', to_provider: 'mistral' });
    } finally {
      rig.vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY, port: Number(new URL(url).port) });
    }
  });

  it('never sends the client x-provider-key to a failover vendor', async () => {
    await rig.vendor.close();
    const url = rig.vendor.url;
    try {
      const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: authed(rig.tenant.api_key, { 'x-provider-key': 'sk-client-openai-key' }),
        body: JSON.stringify({ model: 'primary-model', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(r.status).toBe(200);
      expect(backup.requests[0]!.headers.authorization).toBe('Bearer sk-backup-vendor');
    } finally {
      rig.vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY, port: Number(new URL(url).port) });
    }
  });

  it('keeps a disabled model out of the failover chain', async () => {
    const conn = rig.gw.services.db.em().getConnection();
    await conn.execute(`update catalog_models set disabled = true where model = 'backup-model'`);
    await rig.gw.services.catalog.changed();
    await rig.vendor.close();
    const url = rig.vendor.url;
    try {
      const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'primary-model', messages: [{ role: 'user', content: 'x' }] }) });
      expect(r.status).toBe(502);
      expect(backup.requests).toHaveLength(0);
    } finally {
      await conn.execute(`update catalog_models set disabled = false where model = 'backup-model'`);
      await rig.gw.services.catalog.changed();
      rig.vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY, port: Number(new URL(url).port) });
    }
  });
});
