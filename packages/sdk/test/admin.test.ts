import type { ModelProfile } from '@optimizer/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient } from '../src/index.ts';
import { startServer, type TestServer } from './server.ts';

let server: TestServer;
let client: OptimizerClient;

const profile: ModelProfile = {
  model: 'acme/small-1',
  provider: 'acme',
  input_per_mtok: 0.1,
  output_per_mtok: 0.4,
  cached_input_per_mtok: 0.025,
  cache_write_multiplier: 1,
  input_modalities: ['text'],
  output_modalities: ['text'],
  tools: 'basic',
  structured_outputs: true,
  reasoning_efforts: [],
  context_length: 128000,
  max_output_tokens: 8192,
  search_only: false,
  moderation_only: false,
  strengths: { chat: 0.6 },
  disabled: false,
  failover: [],
};

beforeEach(async () => {
  const echo = (req: { body: unknown }) => ({ body: req.body ?? { ok: true } });
  server = await startServer({
    'GET /v1/admin/catalog': { body: { data: [profile] } },
    'PUT /v1/admin/catalog/acme%2Fsmall-1': echo,
    'DELETE /v1/admin/catalog/acme%2Fsmall-1': { status: 204 },
    'POST /v1/admin/catalog/acme%2Fsmall-1/disabled': { body: { ...profile, disabled: true } },
    'GET /v1/admin/providers': { body: { data: [{ name: 'acme', base_url: 'https://api.acme.test/v1', enabled: true }] } },
    'PUT /v1/admin/providers/acme': echo,
    'DELETE /v1/admin/providers/acme': { status: 204 },
    'POST /v1/admin/providers/acme/test': { body: { ok: true, latency_ms: 12 } },
  });
  client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant', adminKey: 'adm-secret' });
});
afterEach(() => server.close());

describe('admin calls', () => {
  it('send the admin key as the bearer, never the tenant key', async () => {
    expect(await client.admin.catalog.list()).toEqual([profile]);
    await client.admin.catalog.put('acme/small-1', profile);
    await client.admin.catalog.setDisabled('acme/small-1', true);
    await client.admin.catalog.remove('acme/small-1');
    expect(await client.admin.providers.list()).toHaveLength(1);
    await client.admin.providers.put('acme', { base_url: 'https://api.acme.test/v1', api_key: 'sk-acme', enabled: true });
    expect(await client.admin.providers.test('acme')).toMatchObject({ ok: true });
    await client.admin.providers.remove('acme');
    expect(server.requests).toHaveLength(8);
    for (const r of server.requests) expect(r.headers.authorization).toBe('Bearer adm-secret');
  });

  it('send the bodies the admin routes expect', async () => {
    const { model: _model, ...rest } = profile;
    await client.admin.catalog.put('acme/small-1', rest);
    await client.admin.catalog.setDisabled('acme/small-1', true);
    await client.admin.providers.put('acme', { base_url: 'https://api.acme.test/v1', enabled: false });
    expect(server.requests.map((r) => [`${r.method} ${r.path}`, r.body])).toEqual([
      ['PUT /v1/admin/catalog/acme%2Fsmall-1', profile],
      ['POST /v1/admin/catalog/acme%2Fsmall-1/disabled', { disabled: true }],
      ['PUT /v1/admin/providers/acme', { base_url: 'https://api.acme.test/v1', enabled: false }],
    ]);
  });

  it('fail before sending when the client has no admin key', async () => {
    const tenantOnly = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
    await expect(tenantOnly.admin.catalog.list()).rejects.toMatchObject({ status: 0, code: 'missing_admin_key', endpoint: 'GET /v1/admin/catalog' });
    expect(server.requests).toHaveLength(0);
  });

  it('refuse a profile whose model differs from the path, or an invalid one, without sending', async () => {
    await expect(client.admin.catalog.put('other', profile)).rejects.toMatchObject({ code: 'client_validation', param: 'model' });
    await expect(client.admin.catalog.put('acme/small-1', { ...profile, input_per_mtok: -1 })).rejects.toMatchObject({ code: 'client_validation', param: 'input_per_mtok' });
    await expect(client.admin.providers.put('acme', { base_url: 'ftp://x', enabled: true })).rejects.toMatchObject({ code: 'client_validation', param: 'base_url' });
    expect(server.requests).toHaveLength(0);
  });
});
