// The GraphQL door's admin fields: the admin bearer on every admin field, the same domain
// services and validation as REST (errors carry a code and the field), no provider
// key ever shown, and the committed SDL matches the schema.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import codegenConfig from '../../../codegen.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { sdlPath } from '../src/graphql/print-schema.ts';
import { schemaSdl } from '../src/graphql/schema.ts';
import { startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
let vendor: MockVendor;
const VENDOR_KEY = `sk-vendor-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  [gw, vendor] = await Promise.all([startGateway(), startOpenAIMock({ apiKey: VENDOR_KEY })]);
});
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

interface GqlError {
  message: string;
  extensions?: { code?: string; field?: string };
}
interface GqlResult<T> {
  status: number;
  data?: T | null;
  errors?: GqlError[];
  text: string;
}

async function gql<T = Record<string, any>>(query: string, variables: Record<string, unknown> = {}, key: string | null = gw.adminKey): Promise<GqlResult<T>> {
  const r = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const text = await r.text();
  const body = JSON.parse(text) as { data?: T; errors?: GqlError[] };
  return { status: r.status, ...body, text };
}

const MODEL_FIELDS = `model provider inputPerMtok outputPerMtok cachedInputPerMtok cacheWriteMultiplier inputModalities outputModalities tools
  structuredOutputs reasoningEfforts contextLength maxOutputTokens searchOnly moderationOnly strengths { capability score } disabled failover weights`;
const PUT_MODEL = `mutation($input: ModelInput!) { putModel(input: $input) { ${MODEL_FIELDS} } }`;

function input(model: string, over: Record<string, unknown> = {}) {
  return {
    model, provider: 'openai', inputPerMtok: 1, outputPerMtok: 4, cachedInputPerMtok: 0.5, cacheWriteMultiplier: 1,
    inputModalities: ['text'], outputModalities: ['text'], tools: 'full', structuredOutputs: true, reasoningEfforts: ['low', 'high'],
    contextLength: 128_000, maxOutputTokens: 16_384, strengths: [{ capability: 'chat', score: 0.7 }], ...over,
  };
}

describe('GraphQL door: authentication', () => {
  it('refuses a missing or wrong key with UNAUTHENTICATED and 401, before parsing anything', async () => {
    for (const key of [null, 'not-the-admin-key']) {
      const r = await gql('{ catalog { model } }', {}, key);
      expect(r.status).toBe(401);
      expect(r.data ?? null).toBeNull();
      expect(r.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      // an invalid document says nothing about the schema either
      const bad = await gql('{ nope }', {}, key);
      expect(bad.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it('refuses a tenant key', async () => {
    const r = await gql('{ providers { name } }', {}, `sk-opt-${randomBytes(16).toString('hex')}`);
    expect(r.status).toBe(401);
  });

  it('serves GraphiQL to a browser, from the gateway itself (no CDN)', async () => {
    const r = await fetch(`${gw.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    const page = await r.text();
    expect(page).toMatch(/graphiql/i);
    expect(page).not.toMatch(/unpkg\.com|cdn\.jsdelivr/);
  });

  it("has no admin field for a tenant key (a tenant is served the tenant schema), and nothing of the catalog", async () => {
    const r = await fetch(`${gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'T', email: `${randomBytes(4).toString('hex')}@example.com` }) });
    const tenant = (await r.json()) as { api_key: string };
    const res = await gql('{ catalog { model } }', {}, tenant.api_key);
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', apiCode: 'invalid_request' });
  });
});

describe('GraphQL door: catalog', () => {
  it('lists the catalog with every profile field, like REST', async () => {
    const r = await gql<{ catalog: { model: string; inputPerMtok: number; strengths: { capability: string; score: number }[] }[] }>(`{ catalog { ${MODEL_FIELDS} } }`);
    expect(r.errors).toBeUndefined();
    const rest = (await (await fetch(`${gw.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${gw.adminKey}` } })).json()) as { data: { model: string; input_per_mtok: number; strengths: Record<string, number> }[] };
    expect(r.data!.catalog.map((m) => m.model)).toEqual(rest.data.map((m) => m.model));
    const first = rest.data[0]!;
    const same = r.data!.catalog[0]!;
    expect(same.inputPerMtok).toBe(first.input_per_mtok);
    expect(Object.fromEntries(same.strengths.map((s) => [s.capability, s.score]))).toEqual(first.strengths);
    // the same model on several vendors carries its weights, as on REST (the admin console edits it without losing it)
    const weighted = rest.data.filter((m) => (m as { weights?: string }).weights);
    expect(weighted.length).toBeGreaterThan(0);
    for (const m of weighted) expect((r.data!.catalog.find((c) => c.model === m.model) as unknown as { weights: string }).weights).toBe((m as { weights?: string }).weights);
  });

  it('creates, reads, edits, disables and removes a model', async () => {
    const put = await gql(PUT_MODEL, { input: input('gql-small') });
    expect(put.errors).toBeUndefined();
    expect(put.data!.putModel).toMatchObject({ model: 'gql-small', inputPerMtok: 1, disabled: false, failover: [], searchOnly: false, strengths: [{ capability: 'chat', score: 0.7 }] });
    expect(gw.services.catalog.get('gql-small')).toMatchObject({ input_per_mtok: 1, reasoning_efforts: ['low', 'high'], strengths: { chat: 0.7 } });

    const edit = await gql(PUT_MODEL, { input: input('gql-small', { inputPerMtok: 2.5 }) });
    expect(edit.data!.putModel.inputPerMtok).toBe(2.5);
    const one = await gql('query($n: String!) { model(name: $n) { model inputPerMtok } }', { n: 'gql-small' });
    expect(one.data!.model).toEqual({ model: 'gql-small', inputPerMtok: 2.5 });
    expect((await gql('{ model(name: "no-such") { model } }')).data!.model).toBeNull();

    const dis = await gql('mutation { setModelDisabled(model: "gql-small", disabled: true) { model disabled } }');
    expect(dis.data!.setModelDisabled).toEqual({ model: 'gql-small', disabled: true });
    expect(gw.services.catalog.get('gql-small')!.disabled).toBe(true);

    expect((await gql('mutation { removeModel(model: "gql-small") }')).data!.removeModel).toBe(true);
    expect(gw.services.catalog.get('gql-small')).toBeUndefined();
    const again = await gql('mutation { removeModel(model: "gql-small") }');
    expect(again.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const disGone = await gql('mutation { setModelDisabled(model: "gql-small", disabled: false) { model } }');
    expect(disGone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('validates through the shared schema: BAD_USER_INPUT naming the GraphQL field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ inputPerMtok: -1 }, 'inputPerMtok'],
      [{ cacheWriteMultiplier: 0 }, 'cacheWriteMultiplier'],
      [{ contextLength: 0 }, 'contextLength'],
      [{ inputModalities: [] }, 'inputModalities'],
      [{ provider: 'nobody-registered' }, 'provider'],
      [{ provider: 'Not An Id' }, 'provider'],
      [{ strengths: [{ capability: 'code', score: 2 }] }, 'strengths.code'],
      [{ strengths: [{ capability: 'code', score: 0.5 }, { capability: 'code', score: 0.6 }] }, 'strengths'],
      [{ failover: ['no-such-model'] }, 'failover'],
      [{ model: '' }, 'model'],
    ];
    for (const [over, field] of cases) {
      const r = await gql(PUT_MODEL, { input: input('gql-bad', over) });
      expect(r.data?.putModel ?? null, field).toBeNull();
      expect(r.errors?.[0]?.extensions, field).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(r.errors?.[0]?.message, field).not.toMatch(/_per_|_length/);
    }
    expect(gw.services.catalog.get('gql-bad')).toBeUndefined();
  });
});

describe('GraphQL door: providers', () => {
  it('registers a provider, lists it with its key status and never the key, tests it live, and removes it', async () => {
    const put = await gql('mutation($i: ProviderInput!) { putProvider(name: "gql-vendor", input: $i) { name baseUrl wire enabled keySet builtIn } }', {
      i: { baseUrl: vendor.url, apiKey: VENDOR_KEY, enabled: true, wire: 'openai' },
    });
    expect(put.errors).toBeUndefined();
    expect(put.data!.putProvider).toEqual({ name: 'gql-vendor', baseUrl: vendor.url, wire: 'openai', enabled: true, keySet: true, builtIn: false });
    expect(put.text).not.toContain(VENDOR_KEY);

    const list = await gql<{ providers: { name: string; keySet: boolean; builtIn: boolean }[] }>('{ providers { name baseUrl wire enabled keySet builtIn } }');
    expect(list.text).not.toContain(VENDOR_KEY);
    expect(list.data!.providers.find((p) => p.name === 'gql-vendor')).toMatchObject({ keySet: true, builtIn: false });
    expect(list.data!.providers.find((p) => p.name === 'openai')).toMatchObject({ builtIn: true });

    const test = await gql('mutation { testProvider(name: "gql-vendor") { provider ok status latencyMs error } }');
    expect(test.data!.testProvider).toMatchObject({ provider: 'gql-vendor', ok: true, status: 200, error: null });
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);

    // re-put without a key keeps the stored one
    await gql('mutation($i: ProviderInput!) { putProvider(name: "gql-vendor", input: $i) { keySet } }', { i: { baseUrl: vendor.url } });
    expect((await gql('mutation { testProvider(name: "gql-vendor") { ok } }')).data!.testProvider.ok).toBe(true);

    expect((await gql('mutation { removeProvider(name: "gql-vendor") }')).data!.removeProvider).toBe(true);
    expect((await gql('mutation { testProvider(name: "gql-vendor") { ok } }')).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(gw.logs.join('\n')).not.toContain(VENDOR_KEY);
  });

  it("reports a failing test in the catalogue's words, never the vendor's text", async () => {
    await gql('mutation($i: ProviderInput!) { putProvider(name: "gql-wrongkey", input: $i) { name } }', { i: { baseUrl: vendor.url, apiKey: 'sk-wrong' } });
    const t = await gql('mutation { testProvider(name: "gql-wrongkey") { ok status error } }');
    expect(t.data!.testProvider).toMatchObject({ ok: false, status: 401 });
    expect(t.data!.testProvider.error).toBe('gql-wrongkey: The model provider refused the provider key.');
  });

  it('refuses a bad base URL, a bad name and a built-in name with the field', async () => {
    const noVersion = await gql('mutation { putProvider(name: "gql-two", input: { baseUrl: "http://127.0.0.1:1234" }) { name } }');
    expect(noVersion.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'baseUrl' });
    const badName = await gql('mutation { putProvider(name: "Gql_2", input: { baseUrl: "http://h/v1" }) { name } }');
    expect(badName.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name' });
    const builtIn = await gql('mutation { putProvider(name: "openai", input: { baseUrl: "http://h/v1" }) { name } }');
    expect(builtIn.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', field: 'name' });
  });
});

describe('GraphQL SDL and the web app\'s typed documents', () => {
  it('packages/schema/schema.graphql is current (regenerate: pnpm codegen)', () => {
    expect(readFileSync(sdlPath, 'utf8')).toBe(schemaSdl());
  });

  it('apps/admin-web/src/gql is current (regenerate: pnpm codegen)', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const files = (await generate({ ...codegenConfig, cwd: root, silent: true }, false)) as { filename: string; content: string }[];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(join(root, f.filename), 'utf8'), f.filename).toBe(f.content);
  });
});
