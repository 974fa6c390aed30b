// Idempotency-Key: a retry replays the first answer and meters once.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIMock } from '@optimizer/mock-providers';
import { authed, signup, testDatabase } from './support/gateway.ts';
import { replicaEnv, spawnGateway } from './support/process.ts';
import { callRecords, PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  // no retries inside one call: these tests count the vendor's requests per client attempt
  rig = await startRig({ env: { UPSTREAM_MAX_RETRIES: '0' } });
});
afterAll(async () => {
  await rig.close();
});
beforeEach(() => rig.vendor.reset());

function post(url: string, key: string, body: unknown, idem?: string) {
  return fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key, idem ? { 'idempotency-key': idem } : {}), body: JSON.stringify(body) });
}

const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'once only' }] };

describe('Idempotency-Key', () => {
  it('replays the first answer and meters once when the Idempotency-Key repeats', async () => {
    const key = randomUUID();
    const first = await post(rig.gw.url, rig.tenant.api_key, body, key);
    const firstText = await first.text();
    const second = await post(rig.gw.url, rig.tenant.api_key, { messages: body.messages, model: body.model }, key);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await second.text()).toBe(firstText);
    expect(second.headers.get('x-optimizer-call-id')).toBe(first.headers.get('x-optimizer-call-id'));
    expect(rig.vendor.requests).toHaveLength(1);
    const recs = await callRecords(rig.gw, rig.tenant.account_id);
    expect(recs.map((r) => r.idempotency_key)).toEqual([key]);
  });

  it('answers 422 when the same key comes with a different body', async () => {
    const key = randomUUID();
    expect((await post(rig.gw.url, rig.tenant.api_key, body, key)).status).toBe(200);
    const other = await post(rig.gw.url, rig.tenant.api_key, { ...body, temperature: 1 }, key);
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('idempotency_mismatch');
  });

  it('answers 409 while the first request with the key is still in flight', async () => {
    const key = randomUUID();
    const slowBody = { model: 'slow', messages: [{ role: 'user', content: 'take your time' }] };
    const first = post(rig.gw.url, rig.tenant.api_key, slowBody, key);
    await new Promise((r) => setTimeout(r, 300));
    const concurrent = await post(rig.gw.url, rig.tenant.api_key, slowBody, key);
    expect(concurrent.status).toBe(409);
    expect(((await concurrent.json()) as { error: { code: string } }).error.code).toBe('idempotency_in_flight');
    expect((await first).status).toBe(200);
    const after = await post(rig.gw.url, rig.tenant.api_key, slowBody, key);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(rig.vendor.requests).toHaveLength(1);
  });

  it('scopes keys per tenant', async () => {
    const key = randomUUID();
    const other = await signup(rig.gw);
    await post(rig.gw.url, rig.tenant.api_key, body, key);
    const theirs = await post(rig.gw.url, other.api_key, body, key);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(rig.vendor.requests).toHaveLength(2);
  });

  it('replays a stream as the same SSE bytes', async () => {
    const key = randomUUID();
    const streamBody = { ...body, stream: true };
    const first = await (await post(rig.gw.url, rig.tenant.api_key, streamBody, key)).text();
    const again = await post(rig.gw.url, rig.tenant.api_key, streamBody, key);
    expect(again.headers.get('content-type')).toContain('text/event-stream');
    expect(await again.text()).toBe(first);
    expect(first).toContain('"optimizer"');
    expect(rig.vendor.requests).toHaveLength(1);
  });

  it('lets a retry after a retryable vendor failure dispatch again', async () => {
    const key = randomUUID();
    const flaky = { model: 'flaky', messages: [{ role: 'user', content: 'try again' }] };
    expect((await post(rig.gw.url, rig.tenant.api_key, flaky, key)).status).toBe(502);
    const retry = await post(rig.gw.url, rig.tenant.api_key, flaky, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(rig.vendor.requests).toHaveLength(2);
  });

  it('refuses an over-long key with 400', async () => {
    const r = await post(rig.gw.url, rig.tenant.api_key, body, 'k'.repeat(256));
    expect(r.status).toBe(400);
    expect(rig.vendor.requests).toHaveLength(0);
  });
});

describe('Idempotency-Key across two API processes on one PostgreSQL and Redis', { timeout: 90_000 }, () => {
  it('replays the first answer when the repeat lands on a second API process, and meters once', async () => {
    const db = await testDatabase({ force: true });
    const vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
    const shared = replicaEnv(db.url!, vendor.url, PLATFORM_KEY, { METER_FLUSH_MS: '50' });
    const a = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-a-')) });
    const b = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-b-')) });
    try {
      const t = await signup({ url: a.url });
      const key = randomUUID();
      const first = await post(a.url, t.api_key, body, key);
      expect(first.status).toBe(200);
      const second = await post(b.url, t.api_key, body, key);
      expect(second.status).toBe(200);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await second.text()).toBe(await first.text());
      expect(vendor.requests).toHaveLength(1);

      const slow = { model: 'slow', messages: [{ role: 'user', content: 'x' }] };
      const key2 = randomUUID();
      const inFlight = post(a.url, t.api_key, slow, key2);
      await new Promise((r) => setTimeout(r, 300));
      expect((await post(b.url, t.api_key, slow, key2)).status).toBe(409);
      expect((await post(b.url, t.api_key, { ...slow, temperature: 0 }, key2)).status).toBe(422);
      expect((await inFlight).status).toBe(200);

      // process a writes its records on its own flush timer; wait for them, then count
      let records: { status: number }[] = [];
      for (let i = 0; i < 50; i++) {
        records = ((await (await fetch(`${b.url}/v1/calls`, { headers: authed(t.api_key) })).json()) as { data: { status: number }[] }).data;
        if (records.length >= 2) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 300));
      records = ((await (await fetch(`${b.url}/v1/calls`, { headers: authed(t.api_key) })).json()) as { data: { status: number }[] }).data;
      expect(records.map((c) => c.status)).toEqual([200, 200]);
    } finally {
      a.kill('SIGTERM');
      b.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
      await vendor.close();
      await db.drop();
    }
  });
});
