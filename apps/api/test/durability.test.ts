// A fault never loses an acknowledged call: a killed process replays its
// write-ahead file at the next start (once), and SIGTERM lets in-flight requests
// finish and writes what is pending before exiting.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, seedDataDir, signup, testDatabase, type TestDatabase, hotStoreEnv } from './support/gateway.ts';
import { spawnGateway } from './support/process.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let db: TestDatabase;
beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase();
});
afterAll(async () => {
  await vendor.close();
  await db.drop();
});

function envFor(dataDir: string, extra: Record<string, string> = {}) {
  seedDataDir(dataDir);
  return {
    DATA_DIR: dataDir,
    ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
    OPENAI_BASE_URL: vendor.url,
    OPENAI_API_KEY: PLATFORM_KEY,
    ...(db.url ? hotStoreEnv(db.url) : {}),
    ...extra,
  };
}

function complete(url: string, key: string, model = 'gpt-4o-mini') {
  return fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body: JSON.stringify({ model, messages: [{ role: 'user', content: 'remember me' }] }) });
}

async function callIds(url: string, key: string): Promise<string[]> {
  const r = (await (await fetch(`${url}/v1/calls?limit=500`, { headers: authed(key) })).json()) as { data: { id: string }[] };
  return r.data.map((c) => c.id);
}

describe('durability of metering', { timeout: 240_000 }, () => {
  it('meters an answered call exactly once after the process is killed before its batch was written', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-crash-'));
    // a flush interval far longer than the test: the record only exists in the write-ahead file
    const first = await spawnGateway(envFor(dataDir, { METER_FLUSH_MS: '600000' }));
    const t = await signup({ url: first.url });
    const answered = await complete(first.url, t.api_key);
    expect(answered.status).toBe(200);
    const callId = answered.headers.get('x-optimizer-call-id')!;
    const wal = readdirSync(join(dataDir, 'wal')).map((f) => readFileSync(join(dataDir, 'wal', f), 'utf8')).join('');
    expect(wal).toContain(callId);
    first.kill('SIGKILL');
    await first.exited;

    const second = await spawnGateway(envFor(dataDir));
    expect(await callIds(second.url, t.api_key)).toEqual([callId]);
    second.kill('SIGKILL');
    await second.exited;

    // replaying again (the file of the second run may still hold it) never meters twice
    const third = await spawnGateway(envFor(dataDir));
    expect(await callIds(third.url, t.api_key)).toEqual([callId]);
    third.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });

  it('lets an in-flight request finish on SIGTERM and writes its record before exiting', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-term-'));
    const gw = await spawnGateway(envFor(dataDir, { METER_FLUSH_MS: '600000' }));
    const t = await signup({ url: gw.url });
    const inFlight = complete(gw.url, t.api_key, 'slow');
    await new Promise((r) => setTimeout(r, 300));
    gw.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    const callId = res.headers.get('x-optimizer-call-id')!;
    expect(await gw.exited).toBe(0);
    // written to the database at shutdown, not left for a replay
    const leftovers = readdirSync(join(dataDir, 'wal')).map((f) => readFileSync(join(dataDir, 'wal', f), 'utf8')).join('');
    expect(leftovers).toBe('');
    const again = await spawnGateway(envFor(dataDir));
    expect(await callIds(again.url, t.api_key)).toEqual([callId]);
    again.kill('SIGTERM');
    await again.exited;
  });
});
