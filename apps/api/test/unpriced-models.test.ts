// Every call is priced or refused (issue 30): a model the catalog does not list is served on the
// platform's key only at a price the admin set (an alias for a dated name, or the unknown-model
// price), else refused 400 unknown_model with the closest catalog models; on the tenant's own key
// it is served and marked unpriced. A tenant whose allowance or cap is spent gets 402 for every
// model name on chat and embeddings, whatever the name and whatever its price.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
let broke: TestGateway;
beforeAll(async () => {
  // no price for unlisted models: the rule this file tests (test gateways otherwise price them at zero)
  rig = await startRig({ env: { UNKNOWN_MODEL_PRICE: 'off', RATE_LIMIT_CEILING_RPM: '10000' } });
  // its tenants get no dev allowance: nothing to spend on the platform's keys
  broke = await startGateway({ env: { OPENAI_BASE_URL: rig.vendor.url, OPENAI_API_KEY: PLATFORM_KEY, BILLING_DEV_ALLOWANCE_USD: '0', UNKNOWN_MODEL_PRICE: '0,0' } });
});
afterAll(async () => {
  await broke?.close();
  await rig?.close();
});
beforeEach(() => rig.vendor.reset());

const chat = (gw: { url: string }, key: string, model: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify({ model, messages: [{ role: 'user', content: 'price me' }], max_tokens: 100 }) });
const embed = (gw: { url: string }, key: string, model: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify({ model, input: 'price me' }) });
const admin = (gw: TestGateway, method: string, path: string, body?: unknown) =>
  fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
const ledgerCharged = async (gw: TestGateway, accountId: string): Promise<number> => {
  await gw.services.meter.flush();
  const [row] = (await gw.services.db.em().getConnection().execute(`select coalesce(sum(-amount_micros), 0)::text as spent from ledger_entries where account_id = ? and kind = 'call' and book in ('wallet', 'dev_allowance')`, [accountId])) as { spent: string }[];
  return Number(row!.spent);
};

const UNLISTED = ['gpt-5o', 'openai/not-in-catalog', 'gpt-4o-mini-2024-07-18'];

describe('a model the catalog does not list, on the platform key', { timeout: 60_000 }, () => {
  it('is refused 400 unknown_model naming the closest catalog models, on chat and embeddings, before any vendor call', async () => {
    const t = await signup(rig.gw);
    for (const model of UNLISTED) {
      const r = await chat(rig.gw, t.api_key, model);
      expect(r.status).toBe(400);
      const { error } = (await r.json()) as { error: { code: string; param: string; message: string; suggestions: string[] } };
      expect(error).toMatchObject({ code: 'unknown_model', param: 'model' });
      expect(error.suggestions.length).toBeGreaterThan(0);
      for (const s of error.suggestions) expect(rig.gw.services.catalog.get(s)).toBeDefined();
      expect(error.message).toContain(error.suggestions[0]!);
    }
    const dated = (await (await chat(rig.gw, t.api_key, 'gpt-4o-mini-2024-07-18')).json()) as { error: { suggestions: string[] } };
    expect(dated.error.suggestions[0]).toBe('gpt-4o-mini');
    const e = await embed(rig.gw, t.api_key, 'text-embedding-3-smaller');
    expect(e.status).toBe(400);
    const body = (await e.json()) as { error: { code: string; suggestions: string[] } };
    expect(body.error.code).toBe('unknown_model');
    expect(body.error.suggestions).toContain('text-embedding-3-small');
    expect(rig.vendor.requests).toHaveLength(0);
    expect(await ledgerCharged(rig.gw, t.account_id)).toBe(0);
  });

  it('refuses a name longer than any model id before comparing it with the catalog, and does not echo it', async () => {
    const t = await signup(rig.gw);
    const huge = 'gpt-' + 'a'.repeat(1024 * 1024);
    for (const r of [await chat(rig.gw, t.api_key, huge), await embed(rig.gw, t.api_key, huge)]) {
      expect(r.status).toBe(400);
      const text = await r.text();
      expect(text.length).toBeLessThan(1000);
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid_request', param: 'model' } });
    }
    expect(rig.vendor.requests).toHaveLength(0);
  });

  it('is served and charged as its catalog model through an alias; the vendor receives the name sent', async () => {
    const t = await signup(rig.gw);
    const put = await admin(rig.gw, 'PUT', '/v1/admin/catalog-aliases/gpt-4o-mini-2024-07-18', { model: 'gpt-4o-mini' });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ alias: 'gpt-4o-mini-2024-07-18', model: 'gpt-4o-mini' });
    try {
      expect(((await (await admin(rig.gw, 'GET', '/v1/admin/catalog-aliases')).json()) as { data: unknown[] }).data).toContainEqual({ alias: 'gpt-4o-mini-2024-07-18', model: 'gpt-4o-mini' });
      // an alias must name a listed model, and cannot shadow one
      expect((await admin(rig.gw, 'PUT', '/v1/admin/catalog-aliases/gpt-4.1', { model: 'gpt-4o-mini' })).status).toBe(409);
      expect((await admin(rig.gw, 'PUT', '/v1/admin/catalog-aliases/x-1', { model: 'no-such-model' })).status).toBe(422);

      rig.vendor.script({ usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } });
      const r = await chat(rig.gw, t.api_key, 'gpt-4o-mini-2024-07-18');
      expect(r.status).toBe(200);
      const out = (await r.json()) as { optimizer: Record<string, unknown> };
      const price = rig.gw.services.catalog.get('gpt-4o-mini')!.input_per_mtok;
      expect(out.optimizer.actual_cost).toBe(price);
      expect(out.optimizer.unpriced).toBeUndefined();
      expect(rig.vendor.requests.at(-1)!.body.model).toBe('gpt-4o-mini-2024-07-18');
      expect(await ledgerCharged(rig.gw, t.account_id)).toBe(Math.round(price * 1e6));
    } finally {
      expect((await admin(rig.gw, 'DELETE', '/v1/admin/catalog-aliases/gpt-4o-mini-2024-07-18')).status).toBe(204);
    }
    expect((await chat(rig.gw, t.api_key, 'gpt-4o-mini-2024-07-18')).status).toBe(400);
  });

  it('is served and charged at the unknown-model price the admin set, on chat and embeddings', async () => {
    const t = await signup(rig.gw);
    expect(await (await admin(rig.gw, 'GET', '/v1/admin/unknown-model-price')).json()).toEqual({ unknown_model_price: null });
    const put = await admin(rig.gw, 'PUT', '/v1/admin/unknown-model-price', { input_per_mtok: 3, output_per_mtok: 7 });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ unknown_model_price: { input_per_mtok: 3, output_per_mtok: 7, max_output_tokens: 32_768 } });
    try {
      rig.vendor.script({ usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } });
      const r = await chat(rig.gw, t.api_key, 'gpt-5o');
      expect(r.status).toBe(200);
      const out = (await r.json()) as { optimizer: Record<string, unknown> };
      expect(out.optimizer).toMatchObject({ actual_cost: 10, served_cost: 10 });
      expect(out.optimizer.unpriced).toBeUndefined();
      const e = await embed(rig.gw, t.api_key, 'openai/codestral-embed');
      expect(e.status).toBe(200);
      const emb = (await e.json()) as { usage: { prompt_tokens: number }; optimizer: { actual_cost: number } };
      expect(emb.optimizer.actual_cost).toBe(Math.round(emb.usage.prompt_tokens * 3) / 1e6);
      expect(emb.optimizer.actual_cost).toBeGreaterThan(0);
      expect(await ledgerCharged(rig.gw, t.account_id)).toBe(10_000_000 + Math.round(emb.usage.prompt_tokens * 3));
    } finally {
      const cleared = await admin(rig.gw, 'DELETE', '/v1/admin/unknown-model-price');
      expect(await cleared.json()).toEqual({ unknown_model_price: null });
    }
    expect((await chat(rig.gw, t.api_key, 'gpt-5o')).status).toBe(400);
  });
});

describe("a model the catalog does not list, on the tenant's own key", { timeout: 60_000 }, () => {
  it('is served, costs nothing on the wallet, and says it is unpriced (sent, per-vendor or stored key)', async () => {
    const t = await signup(rig.gw);
    const sent = await chat(rig.gw, t.api_key, 'gpt-5o', { 'x-provider-key': PLATFORM_KEY });
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as { optimizer: Record<string, unknown> }).optimizer).toMatchObject({ unpriced: true, actual_cost: 0 });
    const perVendor = await chat(rig.gw, t.api_key, 'openai/not-in-catalog', { 'x-provider-key-openai': PLATFORM_KEY });
    expect(perVendor.status).toBe(200);
    expect(((await perVendor.json()) as { optimizer: Record<string, unknown> }).optimizer.unpriced).toBe(true);
    const e = await embed(rig.gw, t.api_key, 'openai/codestral-embed', { 'x-provider-key': PLATFORM_KEY });
    expect(e.status).toBe(200);
    expect(((await e.json()) as { optimizer: Record<string, unknown> }).optimizer.unpriced).toBe(true);

    expect((await fetch(`${rig.gw.url}/v1/settings/provider-keys/openai`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ key: PLATFORM_KEY }) })).status).toBe(200);
    const stored = await chat(rig.gw, t.api_key, 'gpt-4o-mini-2024-07-18');
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as { optimizer: Record<string, unknown> }).optimizer.unpriced).toBe(true);
    // a catalog model is priced as ever, and says nothing of it
    const listed = await chat(rig.gw, t.api_key, 'gpt-4o-mini');
    expect(((await listed.json()) as { optimizer: Record<string, unknown> }).optimizer.unpriced).toBeUndefined();
    expect(await ledgerCharged(rig.gw, t.account_id)).toBe(0);
  });
});

describe('a tenant whose allowance or cap is spent', { timeout: 60_000 }, () => {
  const NAMES = ['gpt-4o-mini', ...UNLISTED];
  const EMBED_NAMES = ['text-embedding-3-small', 'openai/codestral-embed'];

  it('gets 402 for every model name on chat and embeddings, even at a price of zero', async () => {
    // `broke` prices unlisted models at zero: the refusal must not depend on the price
    const t = await signup(broke);
    for (const model of NAMES) {
      const r = await chat(broke, t.api_key, model);
      expect(r.status, model).toBe(402);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('dev_allowance_exhausted');
    }
    for (const model of EMBED_NAMES) {
      const r = await embed(broke, t.api_key, model);
      expect(r.status, model).toBe(402);
    }
    expect(rig.vendor.requests).toHaveLength(0);
  });

  it('gets 402 for every model name once the spend cap is reached, priced or not', async () => {
    const t = await signup(rig.gw);
    rig.vendor.script({ usage: { prompt_tokens: 100_000, completion_tokens: 0 } });
    expect((await chat(rig.gw, t.api_key, 'gpt-4o-mini')).status).toBe(200);
    await rig.gw.services.meter.flush();
    // the cap is now below what the month has spent
    const cap = await fetch(`${rig.gw.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: 0.001 }) });
    expect(cap.status).toBe(200);
    rig.vendor.reset();
    for (const model of NAMES) {
      const r = await chat(rig.gw, t.api_key, model);
      expect(r.status, model).toBe(402);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('spend_cap_reached');
    }
    for (const model of EMBED_NAMES) expect((await embed(rig.gw, t.api_key, model)).status, model).toBe(402);
    expect(rig.vendor.requests).toHaveLength(0);
  });
});
