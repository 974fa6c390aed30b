// Stripe's minimum charge and the monthly fee invoice (issue 35): Stripe charges a card no less
// than 0.50 USD (the fake, like Stripe, refuses a smaller charge with amount_too_small, through
// the official SDK). A period whose fee line would be under the minimum is not invoiced: it is
// `carried`, shown so on its statement, and its fee joins the next period's line; once the sum
// reaches the minimum it is invoiced once (two closes at once), paid from the card, and the
// carried periods name the period that took them.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, startStripeMock, type MockVendor, type StripeMock } from '@optimizer/mock-providers';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

const SECRET_KEY = 'sk_test_feeMinimum';
const WEBHOOK_SECRET = 'whsec_feeMinimumSecret';

let stripe: StripeMock;
let vendor: MockVendor;
let gw: TestGateway;

beforeAll(async () => {
  stripe = await startStripeMock({ secretKey: SECRET_KEY, secrets: [WEBHOOK_SECRET] });
  vendor = await startOpenAIMock({ apiKey: 'sk-platform-test-key' });
  gw = await startGateway({
    env: {
      ...stripe.gatewayEnv(),
      OPENAI_BASE_URL: vendor.url,
      OPENAI_API_KEY: 'sk-platform-test-key',
      BILLING_DEV_ALLOWANCE_USD: '0',
      BILLING_SWEEP_MS: '3600000',
      OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
    },
  });
  stripe.webhookUrl = `${gw.url}/v1/billing/webhook`;
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await vendor?.close();
  await stripe?.close();
});

async function rest(method: string, path: string, key: string, body?: unknown) {
  const r = await fetch(`${gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}
const sql = <T>(q: string, params: unknown[] = []) => gw.services.db.em().getConnection().execute(q, params) as Promise<T[]>;
const sdk = () => new Stripe(SECRET_KEY, { host: new URL(stripe.url).hostname, port: Number(new URL(stripe.url).port), protocol: 'http', maxNetworkRetries: 0 });

/** A tenant in paid production: a checkout top-up saved its card, then a Stripe subscription. */
async function subscribed() {
  const t = await signup(gw);
  const { checkout_id } = (await rest('POST', '/v1/billing/topup', t.api_key, { amount_usd: 20 })).body as { checkout_id: string };
  expect((await stripe.deliver(stripe.pay(checkout_id))).status).toBe(200);
  const session = stripe.sessions.get(checkout_id)!;
  expect((await rest('POST', `/v1/workflows/${t.workflow_id}/report/finalize`, t.api_key)).status).toBe(201);
  expect((await rest('PUT', '/v1/settings/provider-keys/openai', t.api_key, { key: 'sk-platform-test-key' })).status).toBe(200);
  expect((await rest('POST', `/v1/workflows/${t.workflow_id}/subscription`, t.api_key)).status).toBe(201);
  expect((await rest('PUT', '/v1/settings/routing', t.api_key, { cache: { exact: true, ttl_seconds: 600 } })).status).toBe(200);
  return { ...t, customer: String(session.customer) };
}

/** The UTC month `back` months before this one (YYYY-MM), and a time in it. */
function monthBack(back: number): { period: string; at: string } {
  const now = new Date();
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 15));
  return { period: at.toISOString().slice(0, 7), at: at.toISOString() };
}

/** Paid production's calls whose invoiced fee sums to `feeMicros`, dated in `when`'s month. */
async function feeIn(t: { api_key: string; account_id: string }, word: string, when: { at: string }, feeMicros: number) {
  for (let i = 0; i < 2; i++) {
    const r = await rest('POST', '/v1/chat/completions', t.api_key, { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: `fee ${word}` }] });
    expect(r.status).toBe(200);
  }
  await gw.services.meter.flush();
  const thisMonth = `${new Date().toISOString().slice(0, 7)}-01T00:00:00Z`;
  // the period's invoiced fee is exactly feeMicros: on one of its paid-production calls, none on the others
  const invoiced = await sql<{ id: string }>(
    `update call_records set detail = jsonb_set(detail, '{billing,fee_micros}', '0'::jsonb) where account_id = ? and created_at >= ? and detail->'billing'->>'fee_invoiced' = '1' returning id`,
    [t.account_id, thisMonth],
  );
  expect(invoiced.length).toBeGreaterThan(0); // paid production's calls: their fee is invoiced at the period's end
  await sql(`update call_records set detail = jsonb_set(detail, '{billing,fee_micros}', to_jsonb(?::bigint)) where id = ?`, [feeMicros, invoiced[0]!.id]);
  await sql(`update call_records set created_at = ? where account_id = ? and created_at >= ?`, [when.at, t.account_id, thisMonth]);
}

const feeInvoicesOf = (accountId: string) => [...stripe.billing.invoices.values()].filter((i) => i.metadata?.kind === 'fee' && i.metadata.account_id === accountId);
const statementOf = async (key: string, period: string) => (await rest('GET', `/v1/billing/statements?from=${period}-01&to=${period}-20`, key)).body.data[0];

describe("Stripe's minimum charge", { timeout: 120_000 }, () => {
  it('is refused by the fake as Stripe refuses it: amount_too_small, for a payment intent and for an invoice', async () => {
    const client = sdk();
    const t = await subscribed();
    const tooSmall = await client.paymentIntents.create({ amount: 49, currency: 'usd' }).catch((e: unknown) => e);
    expect(tooSmall).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(tooSmall).toMatchObject({ code: 'amount_too_small', param: 'amount', statusCode: 400 });
    const inv = await client.invoices.create({ customer: t.customer, auto_advance: false, collection_method: 'charge_automatically' });
    await client.invoiceItems.create({ customer: t.customer, invoice: inv.id, amount: 30, currency: 'usd' });
    await client.invoices.finalizeInvoice(inv.id!);
    const refused = await client.invoices.pay(inv.id!).catch((e: unknown) => e);
    expect(refused).toMatchObject({ type: 'StripeInvalidRequestError', code: 'amount_too_small' });
  });

  it('carries a fee line under 0.50 USD to the next period, and invoices the sum once it reaches the minimum', async () => {
    const t = await subscribed();
    const [first, second, third] = [monthBack(3), monthBack(2), monthBack(1)];
    await feeIn(t, 'one', first, 300_000); // 0.30 USD: under the minimum
    await feeIn(t, 'two', second, 150_000); // 0.45 USD with the carried: still under
    await feeIn(t, 'three', third, 100_000); // 0.55 USD: invoiced

    expect(await gw.services.feeInvoices.close(t.account_id, first.period)).toMatchObject({ status: 'carried', line_cents: '0', carried_in_micros: '0' });
    expect(feeInvoicesOf(t.account_id)).toEqual([]);
    expect((await statementOf(t.api_key, first.period)).invoice).toEqual({ id: null, status: 'carried', fee_usd: 0.3, carried_in_usd: 0, carried_to: null, line_usd: 0, paid_usd: 0, paid_from: null, failure: null });

    expect(await gw.services.feeInvoices.close(t.account_id, second.period)).toMatchObject({ status: 'carried', carried_in_micros: '300000' });
    expect(feeInvoicesOf(t.account_id)).toEqual([]);

    // two closes at once: one invoice, one line of the three months' fee
    await Promise.all([gw.services.feeInvoices.close(t.account_id, third.period), gw.services.feeInvoices.close(t.account_id, third.period), gw.services.feeInvoices.sweep()]);
    const invoices = feeInvoicesOf(t.account_id);
    expect(invoices).toHaveLength(1);
    expect(invoices[0]!.lines.data.map((l: { amount: number }) => l.amount)).toEqual([55]);
    expect(invoices[0]).toMatchObject({ status: 'paid', amount_paid: 55 });
    const st = await statementOf(t.api_key, third.period);
    expect(st.invoice).toMatchObject({ id: invoices[0]!.id, status: 'paid', fee_usd: 0.1, carried_in_usd: 0.45, line_usd: 0.55, paid_usd: 0.55, paid_from: 'card' });
    // the carried months name the month that took them, and are not invoiced again
    for (const p of [first.period, second.period]) expect((await statementOf(t.api_key, p)).invoice).toMatchObject({ status: 'carried', line_usd: 0, carried_to: third.period });
    await gw.services.feeInvoices.close(t.account_id, third.period);
    expect(feeInvoicesOf(t.account_id)).toHaveLength(1);
  });
});
