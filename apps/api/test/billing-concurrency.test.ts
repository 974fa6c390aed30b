// Acceptance 1 of issue 16: reservations hold across replicas. 100 parallel completions
// against a wallet (or a spend cap) that covers exactly 10, spread over two API processes
// sharing PostgreSQL and Redis: exactly 10 are served, 90 are refused with their 402, the
// ledger balances and the wallet never goes below zero. The same on one embedded process with
// the in-process hot store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, testDatabase, type TestDatabase } from './support/gateway.ts';
import { replicaEnv, spawnGateway, type GatewayProcess } from './support/process.ts';
import { PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

// usage close to the reservation (max_tokens answered in full), so what 10 calls leave is less than an 11th needs
const body = JSON.stringify({ model: 'gpt-4.1', max_tokens: 200, messages: [{ role: 'user', content: 'go' }] });
const USAGE = { prompt_tokens: 1, completion_tokens: 200 };

const complete = (url: string, key: string) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body });

interface Sql {
  query(sql: string, params: unknown[]): Promise<Record<string, any>[]>;
}

/** The reservation one call of `body` takes, read from a calibration call's record. */
async function reservationOf(url: string, adminKey: string, sql: Sql): Promise<number> {
  const t = await signup({ url });
  await credit(url, adminKey, t.account_id, 1);
  const r = await complete(url, t.api_key);
  expect(r.status).toBe(200);
  const id = r.headers.get('x-optimizer-call-id')!;
  for (let i = 0; i < 100; i++) {
    const [row] = await sql.query('select detail from call_records where id = $1', [id]);
    if (row) return row.detail.billing.reserved_micros as number;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('calibration call was never recorded');
}

function credit(url: string, adminKey: string, accountId: string, amount_usd: number) {
  return fetch(`${url}/v1/admin/accounts/${accountId}/credit`, { method: 'POST', headers: authed(adminKey), body: JSON.stringify({ amount_usd, reason: 'test credit' }) });
}

async function fire(urls: string[], key: string): Promise<{ served: number; refused: Record<string, number> }> {
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => complete(urls[i % urls.length]!, key)));
  const refused: Record<string, number> = {};
  let served = 0;
  for (const a of answers) {
    if (a.status === 200) served++;
    else {
      expect(a.status).toBe(402);
      const type = ((await a.json()) as { error: { type: string } }).error.type;
      refused[type] = (refused[type] ?? 0) + 1;
    }
    if (a.status === 200) await a.text();
  }
  return { served, refused };
}

/** Waits until every replica wrote its records, then checks the ledger. */
async function settledLedger(sql: Sql, accountId: string, calls: number) {
  let charges: Record<string, any>[] = [];
  for (let i = 0; i < 100; i++) {
    charges = await sql.query(`select distinct txn_id from ledger_entries where account_id = $1 and kind = 'call'`, [accountId]);
    const [n] = await sql.query('select count(*)::int as n from call_records where account_id = $1', [accountId]);
    if (charges.length >= calls && n!.n >= 100) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const unbalanced = await sql.query('select txn_id from ledger_entries where account_id = $1 group by txn_id having sum(amount_micros) <> 0 or count(*) <> 2', [accountId]);
  const [wallet] = await sql.query(`select coalesce(sum(amount_micros), 0)::bigint as w from ledger_entries where account_id = $1 and book = 'wallet'`, [accountId]);
  return { charges: charges.length, unbalanced, wallet: Number(wallet!.w) };
}

describe('reservations across two API processes on one PostgreSQL and Redis', { timeout: 120_000 }, () => {
  let db: TestDatabase;
  let vendor: MockVendor;
  let a: GatewayProcess;
  let b: GatewayProcess;
  let client: pg.Client;
  let adminKey: string;
  let reservation: number;
  beforeAll(async () => {
    db = await testDatabase({ force: true });
    vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
    vendor.script({ usage: USAGE });
    const shared = replicaEnv(db.url!, vendor.url, PLATFORM_KEY, { METER_FLUSH_MS: '50', BILLING_DEV_ALLOWANCE_USD: '0' });
    adminKey = shared.ADMIN_KEY!;
    a = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-a-')) });
    b = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-b-')) });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const sql: Sql = { query: async (q, p) => (await client.query(q, p)).rows };
    reservation = await reservationOf(a.url, adminKey, sql);
  }, 180_000); // two gateway processes boot: on a loaded 2-core machine that alone took past a minute
  afterAll(async () => {
    a?.kill('SIGTERM');
    b?.kill('SIGTERM');
    await Promise.all([a?.exited, b?.exited]);
    await client?.end();
    await vendor?.close();
    await db?.drop();
  });
  const sql: Sql = { query: async (q, p) => (await client.query(q, p)).rows };

  it('serves exactly 10 of 100 parallel calls on a wallet that covers 10, refuses 90 with wallet_empty, and keeps the ledger balanced', async () => {
    const t = await signup({ url: a.url });
    expect((await credit(a.url, adminKey, t.account_id, (10 * reservation) / 1e6)).status).toBe(204);
    const { served, refused } = await fire([a.url, b.url], t.api_key);
    expect(served).toBe(10);
    expect(refused).toEqual({ wallet_empty: 90 });
    const ledger = await settledLedger(sql, t.account_id, 10);
    expect(ledger.charges).toBe(10);
    expect(ledger.unbalanced).toEqual([]);
    expect(ledger.wallet).toBeGreaterThanOrEqual(0);
    expect(ledger.wallet).toBeLessThan(reservation);
  });

  it('serves exactly 10 of 100 parallel calls under a spend cap that covers 10 and refuses 90 with spend_cap_reached', async () => {
    const t = await signup({ url: a.url });
    await credit(a.url, adminKey, t.account_id, 100);
    const cap = (10 * reservation) / 1e6;
    expect((await fetch(`${a.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: cap }) })).status).toBe(200);
    // the other replica hears of the new setting by a notice
    for (let i = 0; i < 100; i++) {
      const seen = (await (await fetch(`${b.url}/v1/settings/alerts`, { headers: authed(t.api_key) })).json()) as { spend_cap_usd: number | null };
      if (seen.spend_cap_usd === cap) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const { served, refused } = await fire([a.url, b.url], t.api_key);
    expect(served).toBe(10);
    expect(refused).toEqual({ spend_cap_reached: 90 });
    const ledger = await settledLedger(sql, t.account_id, 10);
    expect(ledger.charges).toBe(10);
    expect(ledger.unbalanced).toEqual([]);
    const [spent] = await sql.query('select sum(actual_micros)::bigint as s from call_records where account_id = $1', [t.account_id]);
    expect(Number(spent!.s)).toBeLessThanOrEqual(cap * 1e6);
  });
});

describe('reservations on one process with its default hot store', { timeout: 60_000 }, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { BILLING_DEV_ALLOWANCE_USD: '0' } });
    rig.vendor.script({ usage: USAGE });
  });
  afterAll(() => rig.close());

  it('serves exactly 10 of 100 parallel calls on a wallet that covers 10', async () => {
    const sql: Sql = { query: async (q, p) => (await rig.gw.services.db.em().getConnection().execute(q.replace(/\$\d+/g, '?'), p)) as Record<string, any>[] };
    const reservation = await reservationOf(rig.gw.url, rig.gw.adminKey, sql);
    const t = await signup(rig.gw);
    await credit(rig.gw.url, rig.gw.adminKey, t.account_id, (10 * reservation) / 1e6);
    const { served, refused } = await fire([rig.gw.url], t.api_key);
    expect(served).toBe(10);
    expect(refused).toEqual({ wallet_empty: 90 });
    const ledger = await settledLedger(sql, t.account_id, 10);
    expect(ledger.charges).toBe(10);
    expect(ledger.unbalanced).toEqual([]);
    expect(ledger.wallet).toBeGreaterThanOrEqual(0);
  });
});
