// Acceptance 3 of issue 16: the metering write-ahead file's guarantee extends to money. A
// call's charge rides in the call's own line, so a process killed after the vendor answered
// and before its batch reached the ledger table is charged exactly once after a restart, and
// a second replay charges nothing more.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
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
  vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
  db = await testDatabase();
});
afterAll(async () => {
  await vendor.close();
  await db.drop();
});

const adminKey = `admin-${randomBytes(16).toString('hex')}`;
function envFor(dataDir: string, extra: Record<string, string> = {}) {
  seedDataDir(dataDir);
  return {
    DATA_DIR: dataDir,
    ADMIN_KEY: adminKey,
    OPENAI_BASE_URL: vendor.url,
    OPENAI_API_KEY: PLATFORM_KEY,
    ...(db.url ? hotStoreEnv(db.url) : {}),
    ...extra,
  };
}

async function chargesOf(url: string, key: string, callId: string) {
  const view = (await (await fetch(`${url}/v1/billing`, { headers: authed(key) })).json()) as { ledger: { call_id: string | null; amount_micros: number; book: string }[]; balances: { dev_allowance_micros: number } };
  return { entries: view.ledger.filter((e) => e.call_id === callId), allowance: view.balances.dev_allowance_micros };
}

describe('durability of charges', { timeout: 240_000 }, () => {
  it('charges an answered call exactly once after the process is killed before its ledger batch was written', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-money-crash-'));
    const first = await spawnGateway(envFor(dataDir, { METER_FLUSH_MS: '600000' }));
    const t = await signup({ url: first.url });
    const answered = await fetch(`${first.url}/v1/chat/completions`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 100, messages: [{ role: 'user', content: 'bill me once' }] }) });
    expect(answered.status).toBe(200);
    const callId = answered.headers.get('x-optimizer-call-id')!;
    first.kill('SIGKILL');
    await first.exited;

    const second = await spawnGateway(envFor(dataDir));
    const after = await chargesOf(second.url, t.api_key, callId);
    // gpt-4.1: 10 × $2 + 50 × $8 per million, from the dev allowance
    expect(after.entries).toEqual([expect.objectContaining({ book: 'dev_allowance', amount_micros: -420 })]);
    expect(after.allowance).toBe(25_000_000 - 420);
    second.kill('SIGKILL');
    await second.exited;

    const third = await spawnGateway(envFor(dataDir));
    const again = await chargesOf(third.url, t.api_key, callId);
    expect(again.entries).toHaveLength(1);
    expect(again.allowance).toBe(25_000_000 - 420);
    third.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });
});
