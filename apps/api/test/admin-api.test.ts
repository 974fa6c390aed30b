// The platform admin API: catalog and providers round-trip with validation, writes
// take effect on the next request, and no provider key is ever shown.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import type { ModelProfile } from '@optimizer/schema';
import { authed, hotStoreEnv, signup, testDatabase } from './support/gateway.ts';
import { spawnGateway } from './support/process.ts';
import { allowAnyFailover, PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
let custom: MockVendor;
const CUSTOM_KEY = `sk-custom-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000' } });
  custom = await startOpenAIMock({ apiKey: CUSTOM_KEY });
});
afterAll(async () => {
  await rig.close();
  await custom.close();
});

const admin = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${rig.gw.adminKey}`, 'content-type': 'application/json', ...extra });
const api = (path: string, init: RequestInit = {}) => fetch(`${rig.gw.url}${path}`, init);

function profile(model: string, over: Partial<ModelProfile> = {}): ModelProfile {
  return {
    model, provider: 'openai', input_per_mtok: 1, output_per_mtok: 4, cached_input_per_mtok: 0.5, cache_write_multiplier: 1,
    input_modalities: ['text'], output_modalities: ['text'], tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 16_384, search_only: false, moderation_only: false, strengths: { chat: 0.7 }, disabled: false, failover: [], ...over,
  };
}

describe('catalog admin routes', () => {
  it('creates, reads, updates and deletes a model', async () => {
    const put = await api('/v1/admin/catalog/acme-small', { method: 'PUT', headers: admin(), body: JSON.stringify(profile('acme-small')) });
    expect(put.status).toBe(200);
    expect(((await (await api('/v1/admin/catalog', { headers: admin() })).json()) as { data: ModelProfile[] }).data.find((m) => m.model === 'acme-small')).toMatchObject({ input_per_mtok: 1 });
    const upd = await api('/v1/admin/catalog/acme-small', { method: 'PUT', headers: admin(), body: JSON.stringify(profile('acme-small', { input_per_mtok: 2 })) });
    expect(((await upd.json()) as ModelProfile).input_per_mtok).toBe(2);
    expect((await api('/v1/admin/catalog/acme-small', { method: 'DELETE', headers: admin() })).status).toBe(204);
    expect((await api('/v1/admin/catalog/acme-small', { method: 'DELETE', headers: admin() })).status).toBe(404);
  });

  it('refuses bad input with 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...profile('bad'), input_per_mtok: -1 }, 'input_per_mtok'],
      [{ ...profile('bad'), context_length: 1.5 }, 'context_length'],
      [{ ...profile('bad'), provider: 'nobody-registered' }, 'provider'],
      [{ ...profile('bad'), strengths: { code: 2 } }, 'strengths.code'],
      [{ ...profile('bad'), failover: ['no-such-model'] }, 'failover'],
      [{ ...profile('bad'), colour: 'red' }, 'colour'],
      [{ ...profile('other-name') }, 'model'],
    ];
    for (const [body, param] of cases) {
      const r = await api('/v1/admin/catalog/bad', { method: 'PUT', headers: admin(), body: JSON.stringify(body) });
      expect(r.status, param).toBe(422);
      expect(((await r.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    const dis = await api('/v1/admin/catalog/gpt-4o-mini/disabled', { method: 'POST', headers: admin(), body: JSON.stringify({ disabled: 'yes' }) });
    expect(dis.status).toBe(422);
  });

  it('refuses tenants and missing keys on every admin route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/admin/catalog'],
      ['PUT', '/v1/admin/catalog/x'],
      ['DELETE', '/v1/admin/catalog/x'],
      ['POST', '/v1/admin/catalog/x/disabled'],
      ['GET', '/v1/admin/providers'],
      ['PUT', '/v1/admin/providers/x'],
      ['DELETE', '/v1/admin/providers/x'],
      ['POST', '/v1/admin/providers/x/test'],
    ] as const) {
      expect((await api(path, { method, headers: authed(rig.tenant.api_key), body: method === 'GET' ? null : '{}' })).status, path).toBe(401);
    }
  });
});

describe('live effect of catalog writes', () => {
  it('reprices the very next call after a price edit', async () => {
    rig.vendor.script({ usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } });
    const call = async () =>
      ((await (await api('/v1/chat/completions', { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }) })).json()) as {
        optimizer: { baseline_cost: number; served_cost: number };
      }).optimizer;
    const original = rig.gw.services.catalog.get('gpt-4o-mini')!;
    try {
      await api('/v1/admin/catalog/gpt-4o-mini', { method: 'PUT', headers: admin(), body: JSON.stringify({ ...original, input_per_mtok: 3, output_per_mtok: 5 }) });
      const after = await call();
      expect(after.served_cost).toBe(8);
      expect(after.baseline_cost).toBe(8);
    } finally {
      await api('/v1/admin/catalog/gpt-4o-mini', { method: 'PUT', headers: admin(), body: JSON.stringify(original) });
    }
  });
});

describe('provider admin routes', () => {
  it('registers a custom provider, tests it, gives it a model, and serves a completion through it without a restart', async () => {
    const put = await api('/v1/admin/providers/acme-llm', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: custom.url, api_key: CUSTOM_KEY, enabled: true }) });
    expect(put.status).toBe(200);
    const putText = await put.text();
    expect(putText).not.toContain(CUSTOM_KEY);
    expect(JSON.parse(putText)).toMatchObject({ name: 'acme-llm', key_set: true, wire: 'openai', built_in: false });

    const test = (await (await api('/v1/admin/providers/acme-llm/test', { method: 'POST', headers: admin() })).json()) as { ok: boolean; latency_ms: number };
    expect(test.ok).toBe(true);
    expect(test.latency_ms).toBeGreaterThanOrEqual(0);

    expect((await api('/v1/admin/catalog/acme-chat', { method: 'PUT', headers: admin(), body: JSON.stringify(profile('acme-chat', { provider: 'acme-llm' })) })).status).toBe(200);
    const r = await api('/v1/chat/completions', { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'acme-chat', messages: [{ role: 'user', content: 'hello custom' }] }) });
    expect(r.status).toBe(200);
    expect(custom.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CUSTOM_KEY}`);
    expect(custom.requests.at(-1)!.body.model).toBe('acme-chat');

    const list = await (await api('/v1/admin/providers', { headers: admin() })).text();
    expect(list).not.toContain(CUSTOM_KEY);
    expect(JSON.parse(list).data.find((p: { name: string }) => p.name === 'acme-llm')).toMatchObject({ key_set: true });
    const sealed = JSON.stringify(await rig.gw.services.db.em().getConnection().execute('select * from custom_providers'));
    expect(sealed).not.toContain(CUSTOM_KEY);
    expect(rig.gw.logs.join('\n')).not.toContain(CUSTOM_KEY);
  });

  it('joins a custom-provider model to the cross-vendor failover chain', async () => {
    await api('/v1/admin/catalog/flaky-primary', { method: 'PUT', headers: admin(), body: JSON.stringify(profile('flaky-primary', { failover: ['acme-chat'] })) });
    // the gateway's OpenAI mock answers error-5xx only by model name, so point the primary at an address that refuses connections
    await api('/v1/admin/providers/dead-vendor', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-dead', enabled: true }) });
    await api('/v1/admin/catalog/flaky-primary', { method: 'PUT', headers: admin(), body: JSON.stringify(profile('flaky-primary', { provider: 'dead-vendor', failover: ['acme-chat'] })) });
    await allowAnyFailover(rig.gw.url, rig.tenant.api_key); // acme-chat is another model, not flaky-primary elsewhere
    const before = custom.requests.length;
    const r = await api('/v1/chat/completions', { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'flaky-primary', messages: [{ role: 'user', content: 'x' }] }) });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-optimizer-model')).toBe('acme-chat');
    expect(custom.requests.length).toBe(before + 1);
  });

  it("reports a failing provider test in the catalogue's words, never the vendor's text", async () => {
    await api('/v1/admin/providers/acme-wrongkey', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: custom.url, api_key: 'sk-not-the-key', enabled: true }) });
    const t = (await (await api('/v1/admin/providers/acme-wrongkey/test', { method: 'POST', headers: admin() })).json()) as { ok: boolean; status: number; error: string };
    expect(t.ok).toBe(false);
    expect(t.status).toBe(401);
    expect(t.error).toBe('acme-wrongkey: The model provider refused the provider key.');
    expect(JSON.stringify(t)).not.toContain('sk-not-the-key');
  });

  it('refuses a base URL without the version suffix, a bad name, and a built-in name', async () => {
    const noVersion = await api('/v1/admin/providers/acme2', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: 'http://127.0.0.1:1234', enabled: true }) });
    expect(noVersion.status).toBe(422);
    expect(((await noVersion.json()) as { error: { param: string } }).error.param).toBe('base_url');
    expect((await api('/v1/admin/providers/Acme_2', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: 'http://h/v1' }) })).status).toBe(422);
    expect((await api('/v1/admin/providers/openai', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: 'http://h/v1' }) })).status).toBe(409);
  });

  it('refuses a base URL with credentials or a query string (422 naming base_url), and never lists a stored password', async () => {
    for (const base_url of ['http://user:hunter2secret@127.0.0.1:1234/v1', 'http://user@127.0.0.1:1234/v1', 'http://127.0.0.1:1234/v1?key=hunter2secret', 'http://127.0.0.1:1234/v1?', 'http://127.0.0.1:1234/v1#x']) {
      const r = await api('/v1/admin/providers/acme-cred', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url, enabled: true }) });
      expect(r.status, base_url).toBe(422);
      const e = ((await r.json()) as { error: { code: string; param: string; message: string } }).error;
      expect(e).toMatchObject({ code: 'validation_failed', param: 'base_url' });
      expect(e.message).not.toContain('hunter2secret');
    }
    const list = await (await api('/v1/admin/providers', { headers: admin() })).text();
    expect(list).not.toContain('hunter2secret');
    expect(list).not.toContain('acme-cred');
  });

  it('removes a provider so its models stop routing at once', async () => {
    await api('/v1/admin/providers/gone-soon', { method: 'PUT', headers: admin(), body: JSON.stringify({ base_url: custom.url, api_key: CUSTOM_KEY }) });
    await api('/v1/admin/catalog/gone-model', { method: 'PUT', headers: admin(), body: JSON.stringify(profile('gone-model', { provider: 'gone-soon' })) });
    expect((await api('/v1/admin/providers/gone-soon', { method: 'DELETE', headers: admin() })).status).toBe(204);
    const r = await api('/v1/chat/completions', { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'gone-model', messages: [{ role: 'user', content: 'x' }] }) });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('provider_unavailable');
  });
});

describe('catalog writes across two API processes', { timeout: 90_000 }, () => {
  it('takes a disabled model out of routing and failover on the second process at the next request, and brings it back intact', async () => {
    const db = await testDatabase({ force: true });
    const main = await startOpenAIMock({ apiKey: PLATFORM_KEY });
    const backup = await startOpenAIMock({ apiKey: 'sk-backup' });
    const adminKey = `admin-${randomBytes(16).toString('hex')}`;
    const shared = {
      ...hotStoreEnv(db.url!),
      OPTIMIZER_MASTER_KEY: randomBytes(32).toString('base64'),
      ADMIN_KEY: adminKey,
      OPENAI_BASE_URL: main.url,
      OPENAI_API_KEY: PLATFORM_KEY,
      MISTRAL_BASE_URL: backup.url,
      MISTRAL_API_KEY: 'sk-backup',
      UPSTREAM_MAX_RETRIES: '0',
    };
    const a = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-a-')) });
    const b = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-b-')) });
    try {
      const hdr = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
      const t = await signup({ url: a.url });
      await allowAnyFailover(a.url, t.api_key); // backup-x is another model, not primary-x elsewhere
      const backupProfile = profile('backup-x', { provider: 'mistral' });
      await fetch(`${a.url}/v1/admin/catalog/backup-x`, { method: 'PUT', headers: hdr, body: JSON.stringify(backupProfile) });
      await fetch(`${a.url}/v1/admin/catalog/primary-x`, { method: 'PUT', headers: hdr, body: JSON.stringify(profile('primary-x', { failover: ['backup-x'] })) });
      const ask = (url: string, model: string) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }] }) });

      // b hears of a's catalog writes by a notice: on a loaded machine not before a's answer reaches the test
      const servedOnB = async () => (await ask(b.url, 'primary-x')).headers.get('x-optimizer-model') ?? '';
      const within = { timeout: 10_000, interval: 50 };

      // process a disables backup-x; on process b the failover chain loses it at once
      await main.close();
      await expect.poll(servedOnB, within).toBe('backup-x');
      const dis = await fetch(`${a.url}/v1/admin/catalog/backup-x/disabled`, { method: 'POST', headers: hdr, body: JSON.stringify({ disabled: true }) });
      expect(((await dis.json()) as ModelProfile).disabled).toBe(true);
      await expect.poll(async () => (await ask(b.url, 'primary-x')).status, within).toBe(502);
      const listed = (await (await fetch(`${b.url}/v1/models`, { headers: authed(t.api_key) })).json()) as { data: { id: string }[] };
      expect(listed.data.map((m) => m.id)).not.toContain('backup-x');

      // re-enabled: same row, same profile, back in the chain
      await fetch(`${a.url}/v1/admin/catalog/backup-x/disabled`, { method: 'POST', headers: hdr, body: JSON.stringify({ disabled: false }) });
      // the notice reaches b within milliseconds on a quiet machine
      const onB = async () => ((await (await fetch(`${b.url}/v1/admin/catalog`, { headers: hdr })).json()) as { data: ModelProfile[] }).data.find((m) => m.model === 'backup-x');
      await expect.poll(async () => (await onB())?.disabled, within).toBe(false);
      expect(await onB()).toEqual(backupProfile);
      await expect.poll(servedOnB, within).toBe('backup-x');
    } finally {
      a.kill('SIGTERM');
      b.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
      await backup.close();
      await db.drop();
    }
  });
});
