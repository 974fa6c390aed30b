// Production that is paid for (issue 35, acceptance 1 and 2), through the official Stripe SDK
// against the Stripe fake, two gateways on one PostgreSQL and Redis. A subscription is a Stripe
// subscription paid by the card a checkout saved; its state follows signed webhooks, each
// applied once per event id whether replayed, reordered or delivered to both replicas at once:
// a failed renewal makes it past due, production goes on through the grace period and then
// answers 402 subscription_required, a later payment recovers it, and a cancellation ends it at
// the period's end. A period's fee is invoiced once when both replicas close it together, and
// the statement's invoiced amount is the invoice line.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, startStripeMock, type MockVendor, type StripeEvent, type StripeMock } from '@optimizer/mock-providers';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';

const SECRET_KEY = 'sk_test_fakePaidProduction';
const WEBHOOK_SECRET = 'whsec_paidProductionSecret';
const GRACE_S = 2;

let stripe: StripeMock;
let vendor: MockVendor;
let db: TestDatabase;
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  stripe = await startStripeMock({ secretKey: SECRET_KEY, secrets: [WEBHOOK_SECRET] });
  stripe.autoDeliver = false; // every webhook here is delivered by the test, to the replica(s) it chooses
  vendor = await startOpenAIMock({ apiKey: 'sk-platform-test-key' });
  vendor.script({ usage: { prompt_tokens: 200_000, completion_tokens: 50_000 } });
  db = await testDatabase({ force: true });
  const env = {
    ...stripe.gatewayEnv(),
    OPENAI_BASE_URL: vendor.url,
    OPENAI_API_KEY: 'sk-platform-test-key',
    BILLING_DEV_ALLOWANCE_USD: '0',
    BILLING_GRACE_S: String(GRACE_S),
    BILLING_SWEEP_MS: '3600000',
    MANAGED_RUN_CAP: '5',
    MANAGED_PLAN_RUN_CAP: '200',
    METER_FLUSH_MS: '20',
    OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
    ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
  };
  a = await startGateway({ database: db, env });
  b = await startGateway({ database: db, env });
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await a?.close();
  await b?.close();
  await db?.drop();
  await vendor?.close();
  await stripe?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, f: () => Promise<T | false | undefined | null> | T | false | undefined | null, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function rest(gw: TestGateway, method: string, path: string, key: string, body?: unknown) {
  const r = await fetch(`${gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

const complete = (gw: TestGateway, key: string, content = 'hello') => rest(gw, 'POST', '/v1/chat/completions', key, { model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content }] });

/** Delivers one event, signed as Stripe signs it, to a replica's webhook. */
async function deliver(gw: TestGateway, e: StripeEvent): Promise<number> {
  const payload = JSON.stringify(e, null, 2);
  const r = await fetch(`${gw.url}/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload) }, body: payload });
  await r.text();
  return r.status;
}

/** The same events to both replicas at once, `times` each. */
async function toBoth(events: StripeEvent[], times = 1): Promise<void> {
  const statuses = await Promise.all(Array.from({ length: times }, () => events.flatMap((e) => [deliver(a, e), deliver(b, e)])).flat());
  expect(statuses.every((s) => s === 200)).toBe(true);
}

const sql = <T>(q: string, params: unknown[] = []) => a.services.db.em().getConnection().execute(q, params) as Promise<T[]>;
const eventsAbout = (id: string, since: number) => stripe.events.slice(since).filter((e) => JSON.stringify(e.data.object).includes(id));
const appliedTimes = async (ids: string[]) => (await sql<{ n: number }>(`select count(*)::int as n from stripe_events where id in (${ids.map(() => '?').join(', ')})`, ids))[0]!.n;

/** A tenant whose checkout top-up saved a card, with a finalized report for its workflow. */
async function tenantWithCard(gw: TestGateway, topupUsd = 20) {
  const t = await signup(gw);
  const { checkout_id } = (await rest(gw, 'POST', '/v1/billing/topup', t.api_key, { amount_usd: topupUsd })).body as { checkout_id: string };
  expect(await deliver(gw, stripe.pay(checkout_id))).toBe(200);
  const session = stripe.sessions.get(checkout_id)!;
  const card = String(stripe.paymentIntents.get(String(session.payment_intent))!.payment_method);
  expect((await rest(gw, 'POST', `/v1/workflows/${t.workflow_id}/report/finalize`, t.api_key)).status).toBe(201);
  // production runs on the tenant's own provider keys (spec 4.5): the mock vendor takes this one too
  expect((await rest(gw, 'PUT', '/v1/settings/provider-keys/openai', t.api_key, { key: 'sk-platform-test-key' })).status).toBe(200);
  return { ...t, card, customer: String(session.customer) };
}

async function subscribed(gw: TestGateway, topupUsd = 20) {
  const t = await tenantWithCard(gw, topupUsd);
  const started = await rest(gw, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key);
  expect(started.status).toBe(201);
  const sub = [...stripe.billing.subscriptions.values()].find((s) => s.metadata.workflow_id === t.workflow_id)!;
  return { ...t, sub: sub.id as string, started: started.body };
}

const subscription = async (gw: TestGateway, t: { api_key: string; workflow_id: string }) => (await rest(gw, 'GET', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).body;

describe('a managed subscription on the payment processor', { timeout: 120_000 }, () => {
  it('refuses to start without a card, and starts nothing when the first payment is declined', async () => {
    const bare = await signup(a);
    expect((await rest(a, 'POST', `/v1/workflows/${bare.workflow_id}/report/finalize`, bare.api_key)).status).toBe(201);
    const none = await rest(a, 'POST', `/v1/workflows/${bare.workflow_id}/subscription`, bare.api_key);
    expect(none.status).toBe(402);
    expect(none.body.error).toMatchObject({ code: 'payment_method_required', type: 'payment_method_required' });

    const t = await tenantWithCard(a);
    stripe.declined.add(t.card);
    const declined = await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key);
    stripe.declined.delete(t.card);
    expect(declined.status).toBe(402);
    expect(declined.body.error.code).toBe('payment_declined');
    expect([...stripe.billing.subscriptions.values()].filter((s) => s.metadata.workflow_id === t.workflow_id)).toEqual([]);
    expect((await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/stage`, t.api_key)).body.stage).not.toBe('production');
    expect((await rest(a, 'GET', '/v1/billing', t.api_key)).body.subscriptions).toEqual([]);
    // with the card good again it starts
    expect((await rest(a, 'POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).status).toBe(201);
  });

  it('subscribes and pays, goes past due on a failed payment and then answers 402, recovers on a later payment, and ends at the period’s end once cancelled; every webhook applies once', async () => {
    const mark = stripe.events.length;
    const t = await subscribed(a);
    // subscribe and pay: a Stripe subscription on the plan's monthly price, its first invoice paid by the saved card
    const sub = stripe.billing.subscriptions.get(t.sub)!;
    expect(sub).toMatchObject({ status: 'active', customer: t.customer, default_payment_method: t.card, metadata: { kind: 'managed_production', account_id: t.account_id, workflow_id: t.workflow_id } });
    expect(sub.items.data[0].price).toMatchObject({ unit_amount: 4900, currency: 'usd', recurring: { interval: 'month' } });
    const first = stripe.billing.invoices.get(sub.latest_invoice)!;
    expect(first).toMatchObject({ status: 'paid', amount_paid: 4900, billing_reason: 'subscription_create' });
    expect(t.started).toMatchObject({ workflow_id: t.workflow_id, status: 'active', cancel_at_period_end: false, paused: false, price_usd: 49, run_cap: 200 });
    expect(Date.parse(t.started.current_period_end)).toBe(sub.items.data[0].current_period_end * 1000);
    expect((await rest(a, 'GET', `/v1/workflows/${t.workflow_id}/stage`, t.api_key)).body.stage).toBe('production');
    const created = stripe.requests.filter((q) => q.path === '/v1/subscriptions' && q.method === 'POST');
    expect(created.at(-1)!.idempotencyKey).toBeTruthy();
    // the run cap follows the plan: the cap without one plus the plan's runs
    expect(await a.services.subscriptions.runCap(t.account_id)).toBe(205);

    // the creation's events, to both replicas at once, three times: each applied once, nothing changes
    const creation = eventsAbout(t.sub, mark).filter((e) => e.type.startsWith('customer.subscription.') || e.type.startsWith('invoice.'));
    expect(creation.map((e) => e.type)).toEqual(expect.arrayContaining(['customer.subscription.created', 'invoice.paid']));
    await toBoth(creation, 3);
    expect(await appliedTimes(creation.map((e) => e.id))).toBe(creation.length);
    expect((await subscription(b, t)).status).toBe('active');
    expect((await complete(b, t.api_key, 'paid')).status).toBe(200);

    // the renewal is declined: past due, production goes on through the grace period
    stripe.declined.add(t.card);
    const renewalMark = stripe.events.length;
    const renewal = stripe.cycle(t.sub);
    expect(renewal).toMatchObject({ status: 'open', billing_reason: 'subscription_cycle', attempt_count: 1 });
    const failed = stripe.events.slice(renewalMark).find((e) => e.type === 'invoice.payment_failed')!;
    const pastDue = stripe.events.slice(renewalMark).filter((e) => e.type === 'customer.subscription.updated').at(-1)!;
    expect((pastDue.data.object as any).status).toBe('past_due');
    await toBoth([failed], 2);
    expect(await appliedTimes([failed.id])).toBe(1);
    const owing = await subscription(a, t);
    expect(owing).toMatchObject({ status: 'past_due', paused: false });
    const since = Date.parse(owing.past_due_since);
    expect((await complete(a, t.api_key, 'in grace')).status).toBe(200);
    expect(await a.services.subscriptions.runCap(t.account_id)).toBe(205);

    // then the grace ends: both replicas pause production with 402 subscription_required
    await sleep(Math.max(0, since + GRACE_S * 1000 - Date.now()) + 100);
    for (const gw of [a, b]) {
      const refused = await until('the pause on a replica', async () => {
        const r = await complete(gw, t.api_key, 'paused');
        return r.status === 402 ? r : null;
      });
      expect(refused.body.error).toMatchObject({ code: 'subscription_required', type: 'subscription_required' });
    }
    expect(await subscription(b, t)).toMatchObject({ status: 'past_due', paused: true });
    expect(await a.services.subscriptions.runCap(t.account_id)).toBe(5);

    // a later payment recovers it; its events arrive first, then the older ones late (reordered), replayed, to both
    stripe.declined.delete(t.card);
    const retryMark = stripe.events.length;
    expect(stripe.retry(String(renewal.id))).toMatchObject({ status: 'paid', attempt_count: 2 });
    const recovery = stripe.events.slice(retryMark).filter((e) => e.type === 'invoice.paid' || e.type === 'customer.subscription.updated');
    expect(recovery.map((e) => e.type)).toEqual(['invoice.paid', 'customer.subscription.updated']);
    await toBoth(recovery.reverse());
    const late = stripe.events.slice(renewalMark, retryMark).filter((e) => e.type.startsWith('customer.subscription.') || e.type.startsWith('invoice.'));
    await toBoth(late, 2);
    expect(await appliedTimes([...recovery, ...late].map((e) => e.id))).toBe(recovery.length + late.length);
    expect(await subscription(a, t)).toMatchObject({ status: 'active', paused: false, past_due_since: null });
    for (const gw of [a, b]) await until('production resumed on a replica', async () => (await complete(gw, t.api_key, 'resumed')).status === 200);
    expect(await a.services.subscriptions.runCap(t.account_id)).toBe(205);

    // cancel at the period's end: production goes on until Stripe ends the subscription
    const cancelled = await rest(b, 'DELETE', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancel_at_period_end: true });
    expect(stripe.billing.subscriptions.get(t.sub)).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect((await complete(a, t.api_key, 'to the end')).status).toBe(200);
    const endMark = stripe.events.length;
    stripe.cycle(t.sub);
    const deleted = stripe.events.slice(endMark).find((e) => e.type === 'customer.subscription.deleted')!;
    expect(deleted).toBeDefined();
    // no invoice for a period that is not sold
    expect(stripe.events.slice(endMark).filter((e) => e.type.startsWith('invoice.'))).toEqual([]);
    await toBoth([deleted], 3);
    expect(await appliedTimes([deleted.id])).toBe(1);
    expect(await subscription(a, t)).toMatchObject({ status: 'lapsed' });
    expect((await rest(b, 'GET', `/v1/workflows/${t.workflow_id}/stage`, t.api_key)).body.stage).not.toBe('production');
    expect((await rest(a, 'GET', '/v1/billing', t.api_key)).body.subscriptions).toEqual([expect.objectContaining({ workflow_id: t.workflow_id, status: 'lapsed' })]);
    expect(await a.services.subscriptions.runCap(t.account_id)).toBe(5);
    // an old event replayed after the end changes nothing
    await toBoth(recovery);
    expect((await subscription(b, t)).status).toBe('lapsed');
  });

  it('rejects a webhook that is not signed by the endpoint secret and applies nothing', async () => {
    const t = await subscribed(a);
    stripe.declined.add(t.card);
    const m = stripe.events.length;
    stripe.cycle(t.sub);
    stripe.declined.delete(t.card);
    const failed = stripe.events.slice(m).find((e) => e.type === 'invoice.payment_failed')!;
    const payload = JSON.stringify(failed, null, 2);
    const forged = await fetch(`${a.url}/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload, { secrets: ['whsec_notOurs'] }) }, body: payload });
    expect(forged.status).toBe(400);
    expect(await appliedTimes([failed.id])).toBe(0);
    expect((await subscription(a, t)).status).toBe('active');
  });
});

describe("a period's fee on the payment processor", { timeout: 120_000 }, () => {
  /** Moves the tenant's calls into last month (the period that closes) and answers last month's period. */
  async function intoLastMonth(accountId: string): Promise<string> {
    await Promise.all([a.services.meter.flush(), b.services.meter.flush()]);
    const now = new Date();
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
    await sql(`update call_records set created_at = ? where account_id = ?`, [last.toISOString(), accountId]);
    await sql(`update ledger_entries set created_at = ? where account_id = ? and kind = 'call'`, [last.toISOString(), accountId]);
    return last.toISOString().slice(0, 7);
  }

  async function savingCalls(t: { api_key: string }, words: string[]) {
    // calls large enough that the period's fee line passes Stripe's minimum charge (0.50 USD; a
    // smaller one is carried to the next period: billing-fee-minimum.test.ts)
    vendor.script({ usage: { prompt_tokens: 2_000_000, completion_tokens: 500_000 } });
    const put = await rest(a, 'PUT', '/v1/settings/routing', t.api_key, { cache: { exact: true, ttl_seconds: 600 } });
    expect(put.status).toBe(200);
    for (const w of words) {
      expect((await complete(a, t.api_key, w)).status).toBe(200);
      expect((await complete(a, t.api_key, w)).status).toBe(200); // a hit: the saving whose fee is invoiced
    }
  }

  const feeInvoicesOf = (accountId: string) => [...stripe.billing.invoices.values()].filter((i) => i.metadata?.kind === 'fee' && i.metadata.account_id === accountId);
  const statementOf = async (gw: TestGateway, key: string, period: string) => (await rest(gw, 'GET', `/v1/billing/statements?from=${period}-01&to=${period}-20`, key)).body.data[0];

  it('is invoiced once when two replicas close the period at the same time, paid from the card on file, and the statement shows the invoice line', async () => {
    const t = await subscribed(a);
    await savingCalls(t, ['one', 'two', 'three']);
    const wallet = (await rest(a, 'GET', '/v1/billing', t.api_key)).body.balances.wallet_micros as number;
    const period = await intoLastMonth(t.account_id);

    const closes = await Promise.all([a.services.feeInvoices.close(t.account_id, period), b.services.feeInvoices.close(t.account_id, period), a.services.feeInvoices.sweep(), b.services.feeInvoices.sweep(), a.services.feeInvoices.close(t.account_id, period)]);
    expect(closes.length).toBe(5);
    const invoices = feeInvoicesOf(t.account_id);
    expect(invoices).toHaveLength(1);
    const inv = invoices[0]!;
    expect(inv.lines.data).toHaveLength(1);
    const line = inv.lines.data[0];
    expect(stripe.requests.filter((q) => q.method === 'POST' && q.path === '/v1/invoiceitems' && q.body.customer === t.customer)).toHaveLength(1);

    const st = await statementOf(b, t.api_key, period);
    expect(st.closed).toBe(true);
    expect(st.micros.fees_invoiced).toBeGreaterThan(0);
    expect(st.micros.fees_invoiced).toBe(st.micros.fees); // every call was paid production's
    expect(line.amount).toBe(Math.floor(st.micros.fees_invoiced / 10_000));
    expect(line.amount).toBeGreaterThan(0);
    expect(st.invoice).toMatchObject({ id: inv.id, status: 'paid', line_usd: line.amount / 100, paid_usd: line.amount / 100, paid_from: 'card', fee_usd: st.fees_invoiced_usd });
    // paid by the card on file; the wallet was not charged the fee
    expect(inv).toMatchObject({ status: 'paid', amount_paid: line.amount, amount_paid_off_stripe: 0 });
    const pi = stripe.paymentIntents.get(inv.payments.data[0].payment.payment_intent)!;
    expect(pi).toMatchObject({ status: 'succeeded', amount: line.amount, payment_method: t.card });
    expect((await rest(a, 'GET', '/v1/billing', t.api_key)).body.balances.wallet_micros).toBe(wallet);
    expect(st.micros.amount_due).toBe(st.micros.usage); // the amount due carries no fee: it is on the invoice

    // its webhooks, to both replicas, change nothing; a later close is the same invoice
    await toBoth(eventsAbout(inv.id, 0).filter((e) => e.type.startsWith('invoice.')), 2);
    await Promise.all([a.services.feeInvoices.close(t.account_id, period), b.services.feeInvoices.close(t.account_id, period)]);
    expect(feeInvoicesOf(t.account_id)).toHaveLength(1);
    expect((await statementOf(a, t.api_key, period)).invoice).toEqual(st.invoice);
  });

  it('is paid from the wallet when the card is declined, once, with the invoice marked paid outside Stripe', async () => {
    const t = await subscribed(a, 30);
    await savingCalls(t, ['four', 'five']);
    const period = await intoLastMonth(t.account_id);
    const before = (await rest(a, 'GET', '/v1/billing', t.api_key)).body.balances.wallet_micros as number;
    stripe.declined.add(t.card);
    await Promise.all([a.services.feeInvoices.close(t.account_id, period), b.services.feeInvoices.close(t.account_id, period)]);
    stripe.declined.delete(t.card);
    const [inv] = feeInvoicesOf(t.account_id);
    expect(feeInvoicesOf(t.account_id)).toHaveLength(1);
    const line = inv!.lines.data[0];
    expect(inv).toMatchObject({ status: 'paid', amount_paid_off_stripe: line.amount });
    const st = await statementOf(a, t.api_key, period);
    expect(st.invoice).toMatchObject({ status: 'paid', paid_from: 'wallet', line_usd: line.amount / 100, paid_usd: line.amount / 100, failure: expect.stringContaining('card declined') });
    const ledger = await sql<{ amount_micros: string }>(`select amount_micros::text from ledger_entries where account_id = ? and kind = 'fee_invoice' and book = 'wallet'`, [t.account_id]);
    expect(ledger.map((l) => Number(l.amount_micros))).toEqual([-line.amount * 10_000]);
    expect((await rest(a, 'GET', '/v1/billing', t.api_key)).body.balances.wallet_micros).toBe(before - line.amount * 10_000);
  });
});
