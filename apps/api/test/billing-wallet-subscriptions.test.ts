// Managed Production without a payment processor (no STRIPE_SECRET_KEY, the embedded default):
// the plan's price is taken from the tenant's wallet, at the start and at each renewal, once per
// workflow and month however many replicas sweep (two gateways on one PostgreSQL; one on the
// embedded database). A wallet that cannot pay the start is 402 wallet_empty with nothing
// started; a renewal it cannot pay puts the subscription past due, production goes on for the
// grace period and then answers 402 subscription_required as on the Stripe path; a top-up
// recovers it; a cancellation runs to the paid month's end and is not charged again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';

const GRACE_S = 2;
const PLAN_MICROS = 49_000_000;

let vendor: MockVendor;
let db: TestDatabase;
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: 'sk-platform-test-key' });
  db = await testDatabase();
  const env = {
    OPENAI_BASE_URL: vendor.url,
    OPENAI_API_KEY: 'sk-platform-test-key',
    BILLING_DEV_ALLOWANCE_USD: '0',
    BILLING_GRACE_S: String(GRACE_S),
    BILLING_SWEEP_MS: '3600000', // the test sweeps, on both replicas at once
    MANAGED_PLAN_PRICE_USD: '49',
    OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
    ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
  };
  a = await startGateway({ database: db, env });
  // two replicas on one PostgreSQL; the embedded database is one process's
  b = db.url ? await startGateway({ database: db, env }) : a;
}, 120_000);

afterAll(async () => {
  if (b !== a) await b?.close();
  await a?.close();
  await db?.drop();
  await vendor?.close();
});

async function rest(gw: TestGateway, method: string, path: string, key: string, body?: unknown) {
  const r = await fetch(`${gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

const sql = <T>(q: string, params: unknown[] = []) => a.services.db.em().getConnection().execute(q, params) as Promise<T[]>;
const complete = (gw: TestGateway, key: string) => rest(gw, 'POST', '/v1/chat/completions', key, { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] });
const wallet = async (gw: TestGateway, key: string) => (await rest(gw, 'GET', '/v1/billing', key)).body.balances.wallet_micros as number;
const charges = (accountId: string) => sql<{ txn_id: string; amount_micros: string }>(`select txn_id, amount_micros::text from ledger_entries where account_id = ? and kind = 'subscription' and book = 'wallet' order by created_at`, [accountId]);
const credit = async (gw: TestGateway, accountId: string, usd: number) =>
  expect((await fetch(`${gw.url}/v1/admin/accounts/${accountId}/credit`, { method: 'POST', headers: authed(gw.adminKey), body: JSON.stringify({ amount_usd: usd, reason: 'top-up' }) })).status).toBe(204);
/** The month ends: the row's period end moves into the past, and both replicas sweep at once. */
async function monthEnds(workflowId: string): Promise<void> {
  await sql(`update subscriptions set current_period_end = now() - interval '1 second' where workflow_id = ?`, [workflowId]);
  await Promise.all([a.services.subscriptions.sweep(), b.services.subscriptions.sweep(), a.services.subscriptions.sweep()]);
}

async function tenant() {
  const t = await signup(a);
  expect((await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/report/finalize`, t.api_key)).status).toBe(201);
  // production runs on the tenant's own provider keys (spec 4.5)
  expect((await rest(a, 'PUT', '/v1/settings/provider-keys/openai', t.api_key, { key: 'sk-platform-test-key' })).status).toBe(200);
  return t;
}

describe('a managed subscription paid from the wallet', { timeout: 60_000 }, () => {
  it('refuses to start when the wallet cannot pay, then starts once and charges the month once though asked on both replicas at once', async () => {
    const t = await tenant();
    const short = await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key);
    expect(short.status).toBe(402);
    expect(short.body.error).toMatchObject({ code: 'wallet_empty', type: 'wallet_empty' });
    expect(short.body.error.message).toMatch(/49 USD/);
    expect((await rest(a, 'GET', '/v1/billing', t.api_key)).body.subscriptions).toEqual([]);
    expect((await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/stage`, t.api_key)).body.stage).not.toBe('production');

    await credit(a, t.account_id, 60);
    const started = await Promise.all([a, b, a, b].map((gw) => rest(gw, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)));
    expect(started.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(started[0]!.body).toMatchObject({ status: 'active', price_usd: 49, paused: false, cancel_at_period_end: false });
    expect(await charges(t.account_id)).toEqual([{ txn_id: expect.stringMatching(new RegExp(`^subscription:${t.workflow_id}:`)), amount_micros: String(-PLAN_MICROS) }]);
    expect(await wallet(b, t.api_key)).toBe(60_000_000 - PLAN_MICROS);
    expect((await rest(b, 'GET', `/v1/workflows/${t.workflow_id}/stage`, t.api_key)).body.stage).toBe('production');
  });

  it('renews from the wallet once per month across replicas; a short wallet goes past due, then 402 after the grace, and a top-up recovers it', async () => {
    const t = await tenant();
    await credit(a, t.account_id, 100);
    expect((await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).status).toBe(201);
    const firstEnd = Date.parse((await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body.current_period_end);

    // the month ends: three sweeps on two replicas pay the next month once
    await monthEnds(t.workflow_id);
    expect(await charges(t.account_id)).toHaveLength(2);
    expect(await wallet(a, t.api_key)).toBe(100_000_000 - 2 * PLAN_MICROS);
    const renewed = (await rest(b, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body;
    expect(renewed).toMatchObject({ status: 'active', paused: false });
    expect(Date.parse(renewed.current_period_end)).toBeGreaterThan(Date.now() + 27 * 24 * 3600_000);
    expect(Date.parse(renewed.current_period_end)).not.toBe(firstEnd);

    // the next month: 2 USD left, it cannot pay: past due, and production goes on through the grace
    await monthEnds(t.workflow_id);
    expect(await charges(t.account_id)).toHaveLength(2);
    const owing = (await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body;
    expect(owing).toMatchObject({ status: 'past_due', paused: false });
    expect((await complete(a, t.api_key)).status).toBe(200);
    // then the grace ends: both replicas answer 402 subscription_required
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(owing.past_due_since) + GRACE_S * 1000 - Date.now()) + 100));
    for (const gw of [a, b]) {
      await expect.poll(async () => (await complete(gw, t.api_key)).status, { timeout: 10_000, interval: 100 }).toBe(402);
      expect((await complete(gw, t.api_key)).body.error).toMatchObject({ code: 'subscription_required', type: 'subscription_required' });
    }
    expect((await rest(b, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body).toMatchObject({ status: 'past_due', paused: true });
    // a sweep with the wallet still short charges nothing and keeps it paused
    await Promise.all([a.services.subscriptions.sweep(), b.services.subscriptions.sweep()]);
    expect(await charges(t.account_id)).toHaveLength(2);

    // a top-up pays the month at once, and production resumes on both replicas
    await credit(b, t.account_id, 50);
    expect(await charges(t.account_id)).toHaveLength(3);
    expect((await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body).toMatchObject({ status: 'active', paused: false, past_due_since: null });
    for (const gw of [a, b]) await expect.poll(async () => (await complete(gw, t.api_key)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    await Promise.all([a.services.subscriptions.sweep(), b.services.subscriptions.sweep()]);
    expect(await charges(t.account_id)).toHaveLength(3); // the recovered month is not paid twice
  });

  it('cancels at the period’s end without charging again, and then leaves production', async () => {
    const t = await tenant();
    await credit(a, t.account_id, 100);
    expect((await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).status).toBe(201);
    const cancelled = await rest(b, 'DELETE', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancel_at_period_end: true });
    // taking the cancellation back within the paid month charges nothing
    expect((await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect((await rest(b, 'DELETE', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).status).toBe(200);
    expect((await complete(a, t.api_key)).status).toBe(200);
    await monthEnds(t.workflow_id);
    expect(await charges(t.account_id)).toHaveLength(1);
    expect((await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body.status).toBe('lapsed');
    await expect.poll(async () => (await rest(b, 'GET', `/v1/workflows/${t.workflow_id}/stage`, t.api_key)).body.stage, { timeout: 10_000, interval: 100 }).not.toBe('production');
  });
});
