// Auto top-up and the wallet alerts (issues 16, 17): the setting's validation; a crossing
// below the threshold starts exactly one off-session charge against the card the first
// checkout saved, with two gateways on one PostgreSQL and Redis and 100 calls in parallel;
// the signed webhook credits it once however often it is replayed; a declined charge or a
// missing card credits nothing, alerts auto_topup_failed once and is not retried; wallet_low
// is sent once per crossing. Against the Stripe fake (Stripe's wire format and signatures).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeMock, type StripeMock } from '@optimizer/mock-providers';
import { authed, signup, startGateway, testDatabase, type TestDatabase, type TestGateway } from './support/gateway.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { startRig, type Rig } from './support/vendor.ts';

const SECRET_KEY = 'sk_test_fakeAutoTopup7';
const WEBHOOK_SECRET = 'whsec_autoTopupEndpointSecret';

let stripe: StripeMock;
let smtp: SmtpSink;
let rig: Rig;

const stripeEnv = () => ({
  BILLING_DEV_ALLOWANCE_USD: '0',
  ...stripe.gatewayEnv(),
  SMTP_URL: smtp.url,
  ALERT_POLL_MS: '100',
});

beforeAll(async () => {
  stripe = await startStripeMock({ secretKey: SECRET_KEY, secrets: [WEBHOOK_SECRET] });
  smtp = await startSmtpSink();
  rig = await startRig({ env: stripeEnv() });
  stripe.webhookUrl = `${rig.gw.url}/v1/billing/webhook`;
  rig.vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
});
afterAll(async () => {
  await rig?.close();
  await smtp?.close();
  await stripe?.close();
});

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const putAutoTopup = (gw: { url: string }, key: string, body: unknown) => fetch(`${gw.url}/v1/billing/auto-topup`, { method: 'PUT', headers: authed(key), body: JSON.stringify(body) });
const billing = async (gw: { url: string }, key: string) => (await (await fetch(`${gw.url}/v1/billing`, { headers: authed(key) })).json()) as any;
const complete = (gw: { url: string }, key: string, i: number | string) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 50, messages: [{ role: 'user', content: `call ${i} ${randomBytes(4).toString('hex')}` }] }) });
const intentsFor = (accountId: string) => [...stripe.paymentIntents.values()].filter((p) => (p.metadata as Record<string, string>).account_id === accountId && (p.metadata as Record<string, string>).kind === 'auto_topup');
const emailsTo = (address: string, subject: RegExp) => smtp.messages.filter((m) => m.to.includes(address) && subject.test(m.raw));
const sql = <T>(gw: TestGateway, q: string, params: unknown[] = []) => gw.services.db.em().getConnection().execute(q, params) as Promise<T[]>;

/** A tenant whose wallet holds `usd` from a paid checkout, which saved its card for off-session charges. */
async function fundedTenant(gw: TestGateway, usd: number): Promise<{ api_key: string; account_id: string }> {
  const t = await signup(gw);
  const r = await fetch(`${gw.url}/v1/billing/topup`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ amount_usd: usd }) });
  const { checkout_id } = (await r.json()) as { checkout_id: string };
  expect((await stripe.deliver(stripe.pay(checkout_id))).status).toBe(200);
  return t;
}

async function alertEmails(gw: TestGateway, key: string, address: string): Promise<void> {
  const r = await fetch(`${gw.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(key), body: JSON.stringify({ email_to: [address] }) });
  expect(r.status).toBe(200);
}

describe('the auto top-up setting', { timeout: 60_000 }, () => {
  it('is validated naming the bad field, stored per account and shown on GET /v1/billing; both null turns it off', async () => {
    const t = await signup(rig.gw);
    const other = await signup(rig.gw);
    const bad: [unknown, string][] = [
      [{ threshold_usd: 10, amount_usd: null }, 'amount_usd'],
      [{ threshold_usd: null, amount_usd: 20 }, 'threshold_usd'],
      [{ threshold_usd: 10, amount_usd: 0.5 }, 'amount_usd'],
      [{ threshold_usd: -1, amount_usd: 20 }, 'threshold_usd'],
      [{ threshold_usd: '10', amount_usd: 20 }, 'threshold_usd'],
      [{ threshold_usd: 10 }, 'amount_usd'],
      [{ threshold_usd: 10, amount_usd: 20, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of bad) {
      const r = await putAutoTopup(rig.gw, t.api_key, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      const err = ((await r.json()) as { error: { code: string; param: string; message: string } }).error;
      expect(err.code).toBe('validation_failed');
      expect(err.param, JSON.stringify(body)).toBe(field);
      expect(err.message).toContain(field);
    }
    expect((await billing(rig.gw, t.api_key)).auto_topup).toBeNull();

    const ok = await putAutoTopup(rig.gw, t.api_key, { threshold_usd: 0, amount_usd: 1 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ threshold_usd: 0, amount_usd: 1 });
    const set = await putAutoTopup(rig.gw, t.api_key, { threshold_usd: 5.5, amount_usd: 25 });
    expect(await set.json()).toEqual({ threshold_usd: 5.5, amount_usd: 25 });
    expect((await billing(rig.gw, t.api_key)).auto_topup).toMatchObject({ threshold_usd: 5.5, amount_usd: 25, payment_method_saved: false });
    expect((await billing(rig.gw, other.api_key)).auto_topup).toBeNull();

    const off = await putAutoTopup(rig.gw, t.api_key, { threshold_usd: null, amount_usd: null });
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ threshold_usd: null, amount_usd: null });
    expect((await billing(rig.gw, t.api_key)).auto_topup).toBeNull();
  });
});

describe('a declined or impossible auto top-up', { timeout: 90_000 }, () => {
  it('records the decline, credits nothing, alerts auto_topup_failed once and does not retry within the crossing', async () => {
    const t = await fundedTenant(rig.gw, 5);
    const [profile] = await sql<{ payment_method_id: string; stripe_customer_id: string }>(rig.gw, 'select payment_method_id, stripe_customer_id from billing_profiles where account_id = ?', [t.account_id]);
    expect(profile!.payment_method_id).toMatch(/^pm_/);
    stripe.declined.add(profile!.payment_method_id);
    await alertEmails(rig.gw, t.api_key, 'declined@example.com');

    expect((await complete(rig.gw, t.api_key, 0)).status).toBe(200);
    await rig.gw.services.meter.flush();
    const balance = (await billing(rig.gw, t.api_key)).balances.wallet_micros as number;
    // the threshold sits just below the balance: the next call crosses it
    expect((await putAutoTopup(rig.gw, t.api_key, { threshold_usd: (balance - 1) / 1e6, amount_usd: 10 })).status).toBe(200);
    for (let i = 1; i <= 5; i++) expect((await complete(rig.gw, t.api_key, i)).status).toBe(200);
    await until('the declined charge', () => intentsFor(t.account_id).length === 1);
    await until('the decline recorded', async () => (await billing(rig.gw, t.api_key)).auto_topup.last_attempt?.status === 'failed');
    // its payment_intent.payment_failed webhook arrives (and is replayed): still one failure, one alert
    const failedEvent = stripe.events.find((e) => e.type === 'payment_intent.payment_failed' && (e.data.object.metadata as Record<string, string>).account_id === t.account_id)!;
    expect(failedEvent).toBeDefined();
    for (let i = 0; i < 3; i++) expect((await stripe.deliver(failedEvent)).status).toBe(200);
    await until('the auto_topup_failed email', () => emailsTo('declined@example.com', /Auto top-up of \$10 failed/).length >= 1);

    // more calls below the threshold: no second attempt in the same crossing
    for (let i = 6; i <= 10; i++) expect((await complete(rig.gw, t.api_key, i)).status).toBe(200);
    await rig.gw.services.meter.flush();
    await rig.gw.services.autoTopups.sweep();
    await rig.gw.services.autoTopups.settle();
    await rig.gw.services.alerts.deliverNow();
    await sleep(300);
    expect(intentsFor(t.account_id)).toHaveLength(1);
    expect(emailsTo('declined@example.com', /Auto top-up of \$10 failed/)).toHaveLength(1);
    const view = await billing(rig.gw, t.api_key);
    expect(view.auto_topup.last_attempt).toMatchObject({ status: 'failed', amount_usd: 10, failure: expect.stringContaining('card_declined') });
    expect(view.ledger.filter((e: { kind: string }) => e.kind === 'topup')).toHaveLength(1); // only the checkout
    expect(view.balances.wallet_micros).toBeLessThan(balance);
    const [n] = await sql<{ n: number }>(rig.gw, `select count(*)::int as n from auto_topups where account_id = ?`, [t.account_id]);
    expect(n!.n).toBe(1);
  });

  it('fails without a saved card: no charge, one auto_topup_failed alert', async () => {
    const t = await signup(rig.gw);
    await alertEmails(rig.gw, t.api_key, 'nocard@example.com');
    const credit = await fetch(`${rig.gw.url}/v1/admin/accounts/${t.account_id}/credit`, { method: 'POST', headers: authed(rig.gw.adminKey), body: JSON.stringify({ amount_usd: 2, reason: 'goodwill' }) });
    expect(credit.status).toBe(204);
    // a threshold above the balance: the wallet is already below it, so it is topped up (once) as soon as it is set
    expect((await putAutoTopup(rig.gw, t.api_key, { threshold_usd: 3, amount_usd: 10 })).status).toBe(200);
    await until('the failure recorded', async () => (await billing(rig.gw, t.api_key)).auto_topup.last_attempt?.status === 'failed');
    await until('the auto_topup_failed email', () => emailsTo('nocard@example.com', /Auto top-up of \$10 failed/).length >= 1);
    await rig.gw.services.autoTopups.sweep();
    await rig.gw.services.alerts.deliverNow();
    await sleep(300);
    const view = await billing(rig.gw, t.api_key);
    expect(view.auto_topup).toMatchObject({ payment_method_saved: false, last_attempt: { status: 'failed', failure: expect.stringContaining('no saved payment method') } });
    expect(view.balances.wallet_micros).toBe(2_000_000);
    expect(intentsFor(t.account_id)).toHaveLength(0);
    expect(emailsTo('nocard@example.com', /Auto top-up of \$10 failed/)).toHaveLength(1);
  });
});

describe('auto top-up across two gateways on one PostgreSQL and Redis', { timeout: 180_000 }, () => {
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    db = await testDatabase({ force: true });
    // replicas share the master key (sealed secrets, key hashes) and the admin key, as a deployment's do
    const env = { ...stripeEnv(), OPENAI_BASE_URL: rig.vendor.url, OPENAI_API_KEY: 'sk-platform-test-key', METER_FLUSH_MS: '20', OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'), ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}` };
    a = await startGateway({ database: db, env });
    b = await startGateway({ database: db, env });
  });
  afterAll(async () => {
    stripe.autoDeliver = true;
    stripe.webhookUrl = `${rig.gw.url}/v1/billing/webhook`;
    await a?.stop();
    await b?.stop();
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('starts exactly one charge for a crossing made by 100 parallel calls, credits it once when its webhook is replayed, and sends wallet_low once per crossing', async () => {
    stripe.webhookUrl = `${a.url}/v1/billing/webhook`;
    const t = await fundedTenant(a, 20);
    await alertEmails(a, t.api_key, 'ops@example.com');
    expect((await complete(a, t.api_key, 'first')).status).toBe(200);
    await a.services.meter.flush();
    const start = (await billing(a, t.api_key)).balances.wallet_micros as number;
    const cost = 20_000_000 - start;
    expect(cost).toBeGreaterThan(0);
    // the crossing lands in the middle of the burst
    const threshold = start - 40 * cost;
    stripe.autoDeliver = false; // the payment's webhook is held until the burst is over
    expect((await putAutoTopup(b, t.api_key, { threshold_usd: threshold / 1e6, amount_usd: 5 })).status).toBe(200);
    expect(emailsTo('ops@example.com', /Wallet low/)).toHaveLength(0);

    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => complete(i % 2 ? a : b, t.api_key, i)));
    expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    await Promise.all([a.services.meter.flush(), b.services.meter.flush()]);
    await until('the off-session charge', () => intentsFor(t.account_id).length >= 1);
    // both replicas look again (the nudges and the sweep): still one charge for this crossing
    await Promise.all([a.services.autoTopups.sweep(), b.services.autoTopups.sweep()]);
    await Promise.all([a.services.autoTopups.settle(), b.services.autoTopups.settle()]);
    await sleep(300);
    const intents = intentsFor(t.account_id);
    expect(intents).toHaveLength(1);
    const [profile] = await sql<{ payment_method_id: string; stripe_customer_id: string }>(a, 'select payment_method_id, stripe_customer_id from billing_profiles where account_id = ?', [t.account_id]);
    expect(intents[0]).toMatchObject({ amount: 500, currency: 'usd', customer: profile!.stripe_customer_id, payment_method: profile!.payment_method_id, status: 'succeeded' });
    const sent = stripe.requests.filter((q) => q.path === '/v1/payment_intents' && (q.body.metadata as Record<string, string>).account_id === t.account_id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ off_session: 'true', confirm: 'true', metadata: { kind: 'auto_topup' } });
    expect(sent[0]!.idempotencyKey).toMatch(/^auto_topup:/);
    // nothing is credited before the signed webhook
    const below = (await billing(b, t.api_key)).balances.wallet_micros as number;
    expect(below).toBeLessThan(threshold);
    expect((await billing(b, t.api_key)).auto_topup.last_attempt.status).toBe('pending');

    const succeeded = stripe.events.find((e) => e.type === 'payment_intent.succeeded' && e.data.object.id === intents[0]!.id)!;
    // delivered to both replicas, five times each, in parallel
    const deliveries = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const payload = JSON.stringify(succeeded, null, 2);
        return fetch(`${(i % 2 ? a : b).url}/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload) }, body: payload });
      }),
    );
    expect(deliveries.map((r) => r.status)).toEqual(Array(10).fill(200));
    const credits = await Promise.all(deliveries.map(async (r) => ((await r.json()) as { credited: boolean }).credited));
    expect(credits.filter(Boolean)).toHaveLength(1);
    const after = await billing(a, t.api_key);
    expect(after.balances.wallet_micros).toBe(below + 5_000_000);
    expect(after.ledger.filter((e: { kind: string; ref: string }) => e.kind === 'topup' && e.ref === succeeded.id)).toHaveLength(1);
    await until('the attempt succeeded', async () => (await billing(a, t.api_key)).auto_topup.last_attempt.status === 'succeeded');

    // wallet_low (at the auto top-up threshold): one email for the crossing, however many replicas saw it
    await until('the wallet_low email', () => emailsTo('ops@example.com', /Wallet low/).length >= 1);
    await Promise.all([a.services.alerts.deliverNow(), b.services.alerts.deliverNow()]);
    await sleep(300);
    expect(emailsTo('ops@example.com', /Wallet low/)).toHaveLength(1);

    // the credit re-armed both: a second crossing (a configured wallet_low level above the balance) alerts once more
    const now = after.balances.wallet_micros as number;
    const put = await fetch(`${b.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ email_to: ['ops@example.com'], wallet_low_usd: (now - 3 * cost) / 1e6 }) });
    expect(put.status).toBe(200);
    const more = await Promise.all(Array.from({ length: 10 }, (_, i) => complete(i % 2 ? a : b, t.api_key, `more ${i}`)));
    expect(more.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    await Promise.all([a.services.meter.flush(), b.services.meter.flush()]);
    await until('the second wallet_low email', () => emailsTo('ops@example.com', /Wallet low/).length >= 2);
    await Promise.all([a.services.autoTopups.sweep(), b.services.autoTopups.sweep()]);
    await Promise.all([a.services.alerts.deliverNow(), b.services.alerts.deliverNow()]);
    await sleep(300);
    expect(emailsTo('ops@example.com', /Wallet low/)).toHaveLength(2);
    expect(intentsFor(t.account_id)).toHaveLength(1); // still above the auto top-up threshold: no new charge
  });
});
