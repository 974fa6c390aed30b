// Top-ups through Stripe (issue 16, acceptance 2): the official SDK against a local fake that
// speaks Stripe's wire format and signs webhooks as Stripe does. A paid checkout credits the
// wallet exactly once whatever is replayed or reordered; a bad or stale signature is a 400 and
// changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeMock, type StripeMock } from '@optimizer/mock-providers';
import { loadConfig } from '../src/config.ts';
import { authed, signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

const SECRET_KEY = 'sk_test_fake51Hq2wZ';
const OLD_SECRET = 'whsec_oldSecretBeforeTheRoll';
const NEW_SECRET = 'whsec_newSecretAfterTheRoll';

let stripe: StripeMock;
let rig: Rig;
beforeAll(async () => {
  stripe = await startStripeMock({ secretKey: SECRET_KEY, secrets: [OLD_SECRET, NEW_SECRET] });
  rig = await startRig({ env: { BILLING_DEV_ALLOWANCE_USD: '0', STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: NEW_SECRET, STRIPE_API_URL: stripe.url } });
  stripe.webhookUrl = `${rig.gw.url}/v1/billing/webhook`;
  rig.vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
});
afterAll(async () => {
  await rig.close();
  await stripe.close();
});

const topup = (key: string, amount_usd: number) => fetch(`${rig.gw.url}/v1/billing/topup`, { method: 'POST', headers: authed(key), body: JSON.stringify({ amount_usd }) });
const wallet = async (key: string) => ((await (await fetch(`${rig.gw.url}/v1/billing`, { headers: authed(key) })).json()) as any).balances.wallet_micros as number;
const eventCount = async () => Number(((await rig.gw.services.db.em().getConnection().execute('select count(*)::int as n from stripe_events')) as { n: number }[])[0]!.n);

describe('top-up through Stripe', { timeout: 60_000 }, () => {
  it('returns the hosted checkout URL of a session the SDK created for the amount and the tenant', async () => {
    const t = await signup(rig.gw);
    const r = await topup(t.api_key, 20);
    expect(r.status).toBe(201);
    const { url, checkout_id } = (await r.json()) as { url: string; checkout_id: string };
    expect(url.startsWith(`${stripe.url}/c/pay/`)).toBe(true);
    expect((await fetch(url)).status).toBe(200);
    const sent = stripe.requests.find((q) => q.path === '/v1/checkout/sessions' && q.body.client_reference_id === t.account_id)!;
    expect(sent.body).toMatchObject({ mode: 'payment', metadata: { account_id: t.account_id, kind: 'topup' }, line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '2000' } }] });
    expect(sent.idempotencyKey).toBeTruthy();
    expect(stripe.sessions.get(checkout_id)).toBeDefined();
    expect((await topup(t.api_key, 0.1)).status).toBe(422);
  });

  it('credits a paid checkout exactly once when its webhook is replayed 5 times, reordered, badly signed and stale', async () => {
    const t = await signup(rig.gw);
    expect((await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }) })).status).toBe(402);

    const first = (await (await topup(t.api_key, 20)).json()) as { checkout_id: string };
    const second = (await (await topup(t.api_key, 5)).json()) as { checkout_id: string };
    const paid1 = stripe.pay(first.checkout_id);
    const paid2 = stripe.pay(second.checkout_id);
    // the later payment's event arrives first; the earlier one is then delivered five times
    expect((await stripe.deliver(paid2)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await stripe.deliver(paid1)).status).toBe(200);
    expect((await stripe.deliver(paid2)).status).toBe(200);
    expect(await wallet(t.api_key)).toBe(25_000_000);

    const before = await eventCount();
    const forged = await stripe.deliver({ ...paid1, id: 'evt_test_forged' }, { secrets: ['whsec_notTheEndpointSecret'] });
    expect(forged.status).toBe(400);
    expect(JSON.parse(forged.body).error.code).toBe('invalid_signature');
    const stale = await stripe.deliver({ ...paid2, id: 'evt_test_stale' }, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(400);
    const unsigned = await stripe.deliver(paid1, { header: 'garbage' });
    expect(unsigned.status).toBe(400);
    expect(await eventCount()).toBe(before);
    expect(await wallet(t.api_key)).toBe(25_000_000);

    // signed only with the secret the endpoint no longer holds: refused; with both (Stripe during a roll): accepted above
    expect((await stripe.deliver(paid1, { secrets: [OLD_SECRET] })).status).toBe(400);

    // the credit reached the hot counters: the tenant can call now
    expect((await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }) })).status).toBe(200);
    const ledger = ((await (await fetch(`${rig.gw.url}/v1/billing`, { headers: authed(t.api_key) })).json()) as any).ledger as { kind: string; amount_micros: number; ref: string }[];
    expect(ledger.filter((e) => e.kind === 'topup').map((e) => [e.amount_micros, e.ref]).sort()).toEqual([[20_000_000, paid1.id], [5_000_000, paid2.id]].sort());
  });

  it('acknowledges a second event about an already credited payment without crediting it again', async () => {
    const t = await signup(rig.gw);
    const s = (await (await topup(t.api_key, 3)).json()) as { checkout_id: string };
    const paid = stripe.pay(s.checkout_id);
    const again = { ...paid, id: `${paid.id}_async`, type: 'checkout.session.async_payment_succeeded' };
    expect((await stripe.deliver(again)).status).toBe(200);
    expect((await stripe.deliver(paid)).status).toBe(200);
    expect(await wallet(t.api_key)).toBe(3_000_000);
  });

  it('credits a signed event whose free text holds NUL and a lone surrogate (a customer name): the signature authenticates it', async () => {
    const t = await signup(rig.gw);
    const s = (await (await topup(t.api_key, 4)).json()) as { checkout_id: string };
    const paid = stripe.pay(s.checkout_id);
    const named = { ...paid, data: { ...paid.data, object: { ...paid.data.object, customer_details: { name: 'Zo\u0000\ud800e', email: 'zoe@acme.io' } } } };
    const r = await stripe.deliver(named);
    expect(r.status).toBe(200);
    expect(await wallet(t.api_key)).toBe(4_000_000);
  });

  it('answers 503 to a top-up when Stripe is not configured', async () => {
    const plain = await startRig();
    try {
      const t = await signup(plain.gw);
      const r = await fetch(`${plain.gw.url}/v1/billing/topup`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ amount_usd: 10 }) });
      expect(r.status).toBe(503);
    } finally {
      await plain.close();
    }
  });
});

describe('Stripe configuration at boot', () => {
  it('refuses a secret key without a webhook secret, and a malformed key, naming the setting', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: SECRET_KEY })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'pk_test_abc', STRIPE_WEBHOOK_SECRET: NEW_SECRET })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: `${NEW_SECRET},nope` })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(loadConfig({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: `${OLD_SECRET},${NEW_SECRET}`, STRIPE_API_URL: 'http://127.0.0.1:12111' }).STRIPE_API_URL).toBe('http://127.0.0.1:12111');
  });
});
