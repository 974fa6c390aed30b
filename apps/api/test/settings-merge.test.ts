// Settings writes merge (issue 30): a PUT keeps what it is not sent, a nested object merges
// field by field, null returns a field to its default, and GET shows every field with the
// defaults filled in; on REST, tRPC, GraphQL and the SDK alike, and for every settings topic.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient } from '@optimizer/sdk';
import { gql, rest, trpcClient, type Creds } from './support/doors.ts';
import { signup, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;

beforeAll(async () => {
  // every vendor on a loopback address nothing listens on: these tests make no vendor call
  const vendors = ['OPENAI', 'ANTHROPIC', 'GEMINI', 'AZURE_OPENAI', 'BEDROCK', 'DEEPSEEK', 'FIREWORKS', 'GROQ', 'MISTRAL', 'OLLAMA', 'OPENROUTER', 'TOGETHER', 'VLLM', 'XAI'];
  const env = Object.fromEntries(vendors.map((v) => [`${v}_BASE_URL`, 'http://127.0.0.1:9']));
  gw = await startGateway({ env: { ...env, OPENAI_API_KEY: 'sk-platform-test-key' } });
});
afterAll(async () => {
  await gw.close();
});

const FULL = {
  allowed_providers: ['openai'],
  baseline_model: 'gpt-4.1',
  ladders: { economy: ['gpt-4.1-mini'], premium: ['gpt-4.1'] },
  cache: { exact: true, semantic: true, ttl_seconds: 600 },
  exploration: { step_share: 0.3 },
};

async function tenant(): Promise<Creds> {
  const t = await signup(gw, `Merge ${randomUUID()}`);
  const c: Creds = { key: t.api_key };
  const put = await rest(gw.url, c, 'PUT', '/v1/settings/routing', FULL);
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return c;
}

const routing = async (c: Creds) => (await rest(gw.url, c, 'GET', '/v1/settings/routing')).body;

/** What a write of quality_floor alone must leave as it was. */
function expectKept(s: any): void {
  expect(s.cache).toEqual({ exact: true, semantic: true, ttl_seconds: 600, semantic_threshold: null, semantic_error_bound: null });
  expect(s.ladders).toEqual(FULL.ladders);
  expect(s.allowed_providers).toEqual(['openai']);
  expect(s.baseline_model).toBe('gpt-4.1');
  expect(s.exploration.step_share).toBe(0.3);
}

describe('routing settings merge on every door', () => {
  it('REST: quality_floor alone keeps the cache and the ladders; null returns to the default; GET fills defaults in', async () => {
    const c = await tenant();
    const put = await rest(gw.url, c, 'PUT', '/v1/settings/routing', { quality_floor: 0.97 });
    expect(put.status).toBe(200);
    expect(put.body.quality_floor).toBe(0.97);
    expectKept(put.body);
    const got = await routing(c);
    expect(got).toEqual(put.body);
    expectKept(got);
    // the defaults filled in
    expect(got).toMatchObject({ mode: 'auto', tiebreak: 'cost', band: 0, learning_mode: 'serve', advanced_search: true, judge_model: null });
    expect(got.exploration).toEqual({ step_share: 0.3, step_budget_usd: null, daily_budget_usd: 200 });

    // a nested field alone keeps its siblings
    await rest(gw.url, c, 'PUT', '/v1/settings/routing', { cache: { exact: false } });
    expect((await routing(c)).cache).toEqual({ exact: false, semantic: true, ttl_seconds: 600, semantic_threshold: null, semantic_error_bound: null });
    // one ladder alone keeps the others
    await rest(gw.url, c, 'PUT', '/v1/settings/routing', { ladders: { standard: ['gpt-4.1-mini'] } });
    expect((await routing(c)).ladders).toEqual({ ...FULL.ladders, standard: ['gpt-4.1-mini'] });

    // null: back to the default, for a field, a nested field, a ladder and a whole object
    const reset = await rest(gw.url, c, 'PUT', '/v1/settings/routing', { quality_floor: null, cache: { semantic: null }, ladders: { economy: null }, exploration: null });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const after = await routing(c);
    expect(after.quality_floor).toBe(0.95);
    expect(after.cache).toEqual({ exact: false, semantic: false, ttl_seconds: 600, semantic_threshold: null, semantic_error_bound: null });
    expect(after.ladders).toEqual({ premium: ['gpt-4.1'], standard: ['gpt-4.1-mini'] });
    expect(after.exploration).toEqual({ step_share: 0.2, step_budget_usd: null, daily_budget_usd: 200 });
    expect(after.baseline_model).toBe('gpt-4.1');

    // the merged result is still checked: a bad value names its field, and nothing changes
    const bad = await rest(gw.url, c, 'PUT', '/v1/settings/routing', { quality_floor: 0.5, cache: { ttl_seconds: -1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('cache.ttl_seconds');
    const unknown = await rest(gw.url, c, 'PUT', '/v1/settings/routing', { moed: null });
    expect(unknown.status).toBe(422);
    expect((await routing(c)).quality_floor).toBe(0.95);
  });

  it('the routing the gateway does reads the merged settings (the exact cache stays on)', async () => {
    const t = await signup(gw, 'Hot path');
    const c: Creds = { key: t.api_key };
    await rest(gw.url, c, 'PUT', '/v1/settings/routing', FULL);
    await rest(gw.url, c, 'PUT', '/v1/settings/routing', { quality_floor: 0.96 });
    const stored = gw.services.routingSettings.get(t.account_id);
    expect(stored.cache).toEqual(FULL.cache);
    expect(stored.ladders).toEqual(FULL.ladders);
    expect(gw.services.routingSettings.floor(t.account_id)).toBe(0.96);
  });

  it('tRPC: setRouting with quality_floor alone keeps the cache and the ladders; null resets', async () => {
    const c = await tenant();
    const trpc = trpcClient(gw.url, c);
    const out = await trpc.settings.setRouting.mutate({ quality_floor: 0.97 });
    expectKept(out);
    expectKept(await trpc.settings.routing.query());
    const reset = await trpc.settings.setRouting.mutate({ quality_floor: null, cache: { exact: null } });
    expect(reset.quality_floor).toBe(0.95);
    expect(reset.cache.exact).toBe(false);
    expect(reset.cache.semantic).toBe(true);
  });

  it('GraphQL: setRoutingSettings with qualityFloor alone keeps the cache and the ladders; null resets', async () => {
    const c = await tenant();
    const sel = 'qualityFloor ladders baselineModel cache { exact semantic ttlSeconds } exploration { stepShare dailyBudgetUsd }';
    const m = await gql(gw.url, c, `mutation { setRoutingSettings(input: { qualityFloor: 0.97 }) { ${sel} } }`);
    expect(m.errors).toBeUndefined();
    expect(m.data.setRoutingSettings).toEqual({ qualityFloor: 0.97, ladders: FULL.ladders, baselineModel: 'gpt-4.1', cache: { exact: true, semantic: true, ttlSeconds: 600 }, exploration: { stepShare: 0.3, dailyBudgetUsd: 200 } });
    expectKept(await routing(c));
    const reset = await gql(gw.url, c, `mutation { setRoutingSettings(input: { qualityFloor: null, cache: { semantic: null } }) { ${sel} } }`);
    expect(reset.errors).toBeUndefined();
    expect(reset.data.setRoutingSettings.qualityFloor).toBe(0.95);
    expect(reset.data.setRoutingSettings.cache).toEqual({ exact: true, semantic: false, ttlSeconds: 600 });
    const q = await gql(gw.url, c, `{ routingSettings { ${sel} } }`);
    expect(q.data.routingSettings).toEqual(reset.data.setRoutingSettings);
  });

  it('SDK: settings.routing.put with quality_floor alone keeps the cache and the ladders; null resets', async () => {
    const c = await tenant();
    const client = new OptimizerClient({ baseURL: gw.url, apiKey: c.key! });
    const out = await client.settings.routing.put({ quality_floor: 0.97 });
    expectKept(out);
    expectKept(await client.settings.routing.get());
    const reset = await client.settings.routing.put({ quality_floor: null, ladders: { premium: null } });
    expect(reset.quality_floor).toBe(0.95);
    expect(reset.ladders).toEqual({ economy: ['gpt-4.1-mini'] });
    expect(reset.cache.exact).toBe(true);
  });
});

describe('every settings topic merges the same way', () => {
  it('capture, guard, alerts and limits keep what a write leaves out, and null returns a field to its default', async () => {
    const t = await signup(gw, 'Topics');
    const c: Creds = { key: t.api_key };
    const put = (path: string, body: unknown) => rest(gw.url, c, 'PUT', path, body);

    expect((await put('/v1/settings/capture', { content: 'full', retention_days: 7, redact_pii: false })).status).toBe(200);
    const cap = await put('/v1/settings/capture', { retention_days: 9 });
    expect(cap.body).toEqual({ content: 'full', retention_days: 9, redact_pii: false });
    expect((await put('/v1/settings/capture', { content: null })).body).toEqual({ content: 'metadata', retention_days: 9, redact_pii: false });

    expect((await put('/v1/settings/guard', { redact_pii: true, pii_kinds: ['email'], injection: 'block' })).status).toBe(200);
    expect((await put('/v1/settings/guard', { injection: 'flag' })).body).toEqual({ redact_pii: true, pii_kinds: ['email'], injection: 'flag' });
    expect((await put('/v1/settings/guard', { pii_kinds: null })).body.pii_kinds).toHaveLength(6);

    expect((await put('/v1/settings/alerts', { spend_cap_usd: 50, spend_thresholds: [90] })).status).toBe(200);
    const alerts = await put('/v1/settings/alerts', { wallet_low_usd: 5 });
    expect(alerts.body).toMatchObject({ spend_cap_usd: 50, spend_thresholds: [90], wallet_low_usd: 5 });
    expect((await put('/v1/settings/alerts', { spend_thresholds: null })).body).toMatchObject({ spend_cap_usd: 50, spend_thresholds: [50, 80, 100], wallet_low_usd: 5 });

    expect((await put('/v1/settings/limits', { tenant: { requests_per_minute: 100, tokens_per_minute: 5000 } })).status).toBe(200);
    const limits = await put('/v1/settings/limits', { tenant: { tokens_per_minute: 9000 } });
    expect(limits.body.tenant).toEqual({ requests_per_minute: 100, tokens_per_minute: 9000 });
    expect((await put('/v1/settings/limits', { tenant: { requests_per_minute: null } })).body.tenant).toEqual({ requests_per_minute: null, tokens_per_minute: 9000 });

    // tRPC and GraphQL write the same topics the same way
    const trpc = trpcClient(gw.url, c);
    expect(await trpc.settings.setCapture.mutate({ redact_pii: true })).toEqual({ content: 'metadata', retention_days: 9, redact_pii: true });
    const g = await gql(gw.url, c, 'mutation { setGuardSettings(input: { redactPii: false }) { redactPii injection piiKinds } }');
    expect(g.errors).toBeUndefined();
    expect(g.data.setGuardSettings).toMatchObject({ redactPii: false, injection: 'flag' });
    const a = await gql(gw.url, c, 'mutation { setAlertSettings(input: { walletLowUsd: null }) { spendCapUsd walletLowUsd } }');
    expect(a.data.setAlertSettings).toEqual({ spendCapUsd: 50, walletLowUsd: null });
    expect((await rest(gw.url, c, 'GET', '/v1/settings/alerts')).body).toMatchObject({ spend_cap_usd: 50, wallet_low_usd: null });
  });
});
