// Embeddings are billed like chat (issue 16): on the platform's key a call's vendor cost is
// debited from the dev allowance (then the wallet) in the ledger; its maximum cost is reserved
// before dispatch, so an exhausted allowance or the spend cap refuses it with its 402 before any
// vendor call; on the tenant's own key nothing but the fee (none, for a pinned call) is charged;
// and its rate limits hold as chat's do.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
let broke: TestGateway;
beforeAll(async () => {
  rig = await startRig({ env: { RATE_LIMIT_CEILING_RPM: '1000' } });
  // a gateway whose tenants get no dev allowance: they have nothing to spend until they top up
  broke = await startGateway({ env: { OPENAI_BASE_URL: rig.vendor.url, OPENAI_API_KEY: PLATFORM_KEY, BILLING_DEV_ALLOWANCE_USD: '0' } });
});
afterAll(async () => {
  await broke?.close();
  await rig?.close();
});

const MODEL = 'text-embedding-3-small';
const embed = (gw: { url: string }, key: string, input: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify({ model: MODEL, input }) });
const billing = async (gw: { url: string }, key: string) => (await (await fetch(`${gw.url}/v1/billing`, { headers: authed(key) })).json()) as any;
const calls = async (gw: TestGateway, key: string) => {
  await gw.services.meter.flush();
  return ((await (await fetch(`${gw.url}/v1/calls?limit=50`, { headers: authed(key) })).json()) as { data: any[] }).data;
};
const micros = (usd: number) => Math.round(usd * 1e6);

describe('embeddings on the platform key', { timeout: 60_000 }, () => {
  it('debit the dev allowance by the call’s cost, in the ledger, as a chat call does', async () => {
    const t = await signup(rig.gw);
    const start = (await billing(rig.gw, t.api_key)).balances;
    const r = await embed(rig.gw, t.api_key, 'The quick brown fox jumps over the lazy dog. '.repeat(2000));
    expect(r.status).toBe(200);
    const out = (await r.json()) as { optimizer: { actual_cost: number } };
    expect(out.optimizer.actual_cost).toBeGreaterThan(0);
    const [call] = await calls(rig.gw, t.api_key);
    expect(call.charge).toMatchObject({ usage: out.optimizer.actual_cost, fee: 0 });
    const after = (await billing(rig.gw, t.api_key)).balances;
    expect(start.dev_allowance_micros - after.dev_allowance_micros).toBe(micros(out.optimizer.actual_cost));
    const ledger = (await billing(rig.gw, t.api_key)).ledger as { kind: string; book: string; amount_micros: number }[];
    expect(ledger.filter((e) => e.kind === 'call' && e.book === 'dev_allowance').map((e) => e.amount_micros)).toEqual([-micros(out.optimizer.actual_cost)]);
  });

  it('are refused 402 dev_allowance_exhausted with nothing to spend, before any vendor call, and cost only the fee on the tenant’s own key', async () => {
    const t = await signup(broke);
    const before = rig.vendor.requests.length;
    const client = new OpenAI({ baseURL: `${broke.url}/v1`, apiKey: t.api_key, maxRetries: 0 });
    const err = await client.embeddings.create({ model: MODEL, input: 'hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect(((err as InstanceType<typeof OpenAI.APIError>).error as { type: string }).type).toBe('dev_allowance_exhausted');
    expect(rig.vendor.requests.length).toBe(before);
    // the tenant's own key: served, and nothing leaves the (empty) books
    const own = await embed(broke, t.api_key, 'hello', { 'x-provider-key': PLATFORM_KEY });
    expect(own.status).toBe(200);
    const [call] = await calls(broke, t.api_key);
    expect(call.charge).toEqual({ usage: 0, fee: 0 });
    expect((await billing(broke, t.api_key)).balances).toMatchObject({ wallet_micros: 0, dev_allowance_micros: 0 });
  });

  it('respect the spend cap: a call whose maximum cost would pass it is refused 402 spend_cap_reached, a smaller one is served', async () => {
    const t = await signup(rig.gw);
    // 0.0001 USD: 100 micro-dollars, 5,000 tokens at 0.02 USD per million; the big input is about 10,000
    expect((await fetch(`${rig.gw.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: 0.0001 }) })).status).toBe(200);
    const before = rig.vendor.requests.length;
    const big = await embed(rig.gw, t.api_key, 'word '.repeat(10_000));
    expect(big.status).toBe(402);
    const body = (await big.json()) as { error: { type: string; code: string; cap: number } };
    expect(body.error).toMatchObject({ type: 'spend_cap_reached', code: 'spend_cap_reached', cap: 0.0001 });
    expect(rig.vendor.requests.length).toBe(before);
    expect((await embed(rig.gw, t.api_key, 'a few words')).status).toBe(200);
  });

  it('count against the rate limits: past requests per minute, 429 with Retry-After', async () => {
    const t = await signup(rig.gw);
    expect((await fetch(`${rig.gw.url}/v1/settings/limits`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ tenant: { requests_per_minute: 2 } }) })).status).toBe(200);
    if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    expect((await embed(rig.gw, t.api_key, 'one')).status).toBe(200);
    expect((await embed(rig.gw, t.api_key, 'two')).status).toBe(200);
    const r = await embed(rig.gw, t.api_key, 'three');
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  });
});
