// Idempotency-Key across a restart: on the embedded default the answered keys are kept in the
// data folder (with Redis, in Redis), so a retry after the gateway restarts on the same data
// replays the stored answer: the vendor sees one call and the tenant is charged once.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { IdempotencyJournal } from '../src/hot/idempotency-journal.ts';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';
import { callRecords, PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let database: TestDatabase;
let dataDir: string;
let gw: TestGateway | null = null;

const start = () => startGateway({ dataDir, database, env: { OPENAI_BASE_URL: vendor.url, OPENAI_API_KEY: PLATFORM_KEY, UPSTREAM_MAX_RETRIES: '0' } });

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  database = await testDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'optimizer-idem-restart-'));
});
afterAll(async () => {
  await gw?.stop();
  await database.drop();
  await vendor.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (url: string, key: string, idem: string, body: unknown) =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key, { 'idempotency-key': idem }), body: JSON.stringify(body) });

describe('the idempotency journal', () => {
  it('reads back the latest answer per key within its retention, and skips a line cut short', () => {
    const dir = mkdtempSync(join(tmpdir(), 'optimizer-idem-journal-'));
    try {
      const path = join(dir, 'answers.jsonl');
      const rec = (body: string) => ({ fingerprint: 'fp', state: 'done' as const, status: 200, headers: '{}', body });
      const j = new IdempotencyJournal(path);
      j.append({ id: 'a', expiresAt: 2_000, rec: rec('first') });
      j.append({ id: 'b', expiresAt: 500, rec: rec('expired') });
      j.append({ id: 'a', expiresAt: 3_000, rec: rec('second') });
      j.close();
      const k = new IdempotencyJournal(path);
      expect(k.load(1_000).map((e) => [e.id, e.rec.body])).toEqual([['a', 'second']]);
      k.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Idempotency-Key across a restart', () => {
  it('replays the stored answer after the gateway restarts on the same data, without dispatching or charging again', async () => {
    gw = await start();
    const tenant = await signup(gw);
    const key = randomUUID();
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'exactly once, across a restart' }] };
    const streamKey = randomUUID();
    const streamBody = { ...body, stream: true };

    const first = await post(gw.url, tenant.api_key, key, body);
    expect(first.status).toBe(200);
    const firstText = await first.text();
    const firstStream = await post(gw.url, tenant.api_key, streamKey, streamBody);
    expect(firstStream.status).toBe(200);
    const firstStreamText = await firstStream.text();
    expect(firstStreamText).toContain('data: [DONE]');
    expect(vendor.requests).toHaveLength(2);
    const balance = await (await fetch(`${gw.url}/v1/billing`, { headers: authed(tenant.api_key) })).text();

    await gw.stop();
    gw = await start();

    const again = await post(gw.url, tenant.api_key, key, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(again.headers.get('x-optimizer-call-id')).toBe(first.headers.get('x-optimizer-call-id'));
    const streamAgain = await post(gw.url, tenant.api_key, streamKey, streamBody);
    expect(streamAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(await streamAgain.text()).toBe(firstStreamText);
    expect(vendor.requests).toHaveLength(2); // neither retry reached the vendor

    // a different body under the same key is still refused after the restart
    const other = await post(gw.url, tenant.api_key, key, { ...body, temperature: 1 });
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('idempotency_mismatch');

    // metered and charged once each
    const recs = await callRecords(gw, tenant.account_id);
    expect(recs.map((r) => r.idempotency_key).sort()).toEqual([key, streamKey].sort());
    expect(await (await fetch(`${gw.url}/v1/billing`, { headers: authed(tenant.api_key) })).text()).toBe(balance);
  });
});
