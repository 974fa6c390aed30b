import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

describe('signup and agents', () => {
  it('creates an account, its first workflow and a key shown once with the sk-opt- prefix', async () => {
    const t = await signup(gw);
    expect(t.api_key).toMatch(/^sk-opt-[A-Za-z0-9_-]{43}$/);
    const r = await fetch(`${gw.url}/v1/agents`, { headers: authed(t.api_key) });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: { id: string; name: string; calls: number; saving: number }[] };
    expect(body.data).toEqual([expect.objectContaining({ id: t.workflow_id, name: 'default', calls: 0, saving: 0 })]);
    expect(JSON.stringify(body)).not.toContain(t.api_key);
  });

  it('refuses a second signup with the same email with 409', async () => {
    const email = `dup-${Date.now()}@example.com`;
    const post = () =>
      fetch(`${gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'A', email }) });
    expect((await post()).status).toBe(201);
    const again = await post();
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');
  });

  it('creates an agent whose key belongs to it, and adds a second key that works at once', async () => {
    const t = await signup(gw);
    const created = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ name: 'support-bot' }) });
    expect(created.status).toBe(201);
    const agent = (await created.json()) as { id: string; api_key: string };
    expect(agent.api_key).toMatch(/^sk-opt-/);
    const list = (await (await fetch(`${gw.url}/v1/agents`, { headers: authed(agent.api_key) })).json()) as { data: { name: string }[] };
    expect(list.data.map((a) => a.name)).toEqual(['default', 'support-bot']);

    const added = await fetch(`${gw.url}/v1/agents/${agent.id}/keys`, { method: 'POST', headers: authed(t.api_key) });
    expect(added.status).toBe(201);
    const key2 = (await added.json()) as { id: string; api_key: string };
    expect((await fetch(`${gw.url}/v1/agents`, { headers: authed(key2.api_key) })).status).toBe(200);
  });

  it('drops a revoked key from the cache at once: the next request is 401', async () => {
    const t = await signup(gw);
    const added = (await (await fetch(`${gw.url}/v1/agents/${t.workflow_id}/keys`, { method: 'POST', headers: authed(t.api_key) })).json()) as {
      id: string;
      api_key: string;
    };
    expect((await fetch(`${gw.url}/v1/agents`, { headers: authed(added.api_key) })).status).toBe(200);
    const del = await fetch(`${gw.url}/v1/agents/${t.workflow_id}/keys/${added.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.api_key}` } });
    expect(del.status).toBe(204);
    const after = await fetch(`${gw.url}/v1/agents`, { headers: authed(added.api_key) });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  it('drops a revoked key from the completion path’s memo too, after it was used there', async () => {
    const t = await signup(gw);
    const added = (await (await fetch(`${gw.url}/v1/agents/${t.workflow_id}/keys`, { method: 'POST', headers: authed(t.api_key) })).json()) as {
      id: string;
      api_key: string;
    };
    const complete = () => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(added.api_key), body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }) });
    for (let i = 0; i < 2; i++) expect((await complete()).status).not.toBe(401); // known, then remembered
    const del = await fetch(`${gw.url}/v1/agents/${t.workflow_id}/keys/${added.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.api_key}` } });
    expect(del.status).toBe(204);
    const after = await complete();
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect((await fetch(`${gw.url}/v1/agents`, { headers: authed(t.api_key) })).status).toBe(200); // the other key still works
  });

  it("answers 404, never 200, for another tenant's agent", async () => {
    const a = await signup(gw, 'A');
    const b = await signup(gw, 'B');
    const r = await fetch(`${gw.url}/v1/agents/${a.workflow_id}/keys`, { method: 'POST', headers: authed(b.api_key) });
    expect(r.status).toBe(404);
    const list = await fetch(`${gw.url}/v1/agents/${a.workflow_id}/keys`, { headers: authed(b.api_key) });
    expect(list.status).toBe(404);
    const revoke = await fetch(`${gw.url}/v1/agents/${a.workflow_id}/keys/whatever`, { method: 'DELETE', headers: { authorization: `Bearer ${b.api_key}` } });
    expect(revoke.status).toBe(404);
  });
});

describe('provider keys', () => {
  it('stores a provider key sealed, lists only which providers have one, and deletes it', async () => {
    const t = await signup(gw);
    const secret = `sk-proj-${'x'.repeat(20)}${Date.now()}`;
    const put = await fetch(`${gw.url}/v1/settings/provider-keys/openai`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ key: secret }) });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ provider: 'openai', key_set: true });
    const list = await fetch(`${gw.url}/v1/settings/provider-keys`, { headers: authed(t.api_key) });
    const text = await list.text();
    expect(text).not.toContain(secret);
    expect(JSON.parse(text).data).toEqual([{ provider: 'openai', key_set: true, updated_at: expect.any(String) }]);
    expect(gw.services.providerKeys.reveal(t.account_id, 'openai')).toBe(secret);

    const rows = (await gw.services.db.em().getConnection().execute('select sealed::text as s from provider_keys where account_id = ?', [t.account_id])) as {
      s: string;
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.s).not.toContain(secret);
    expect(rows[0]!.s).not.toContain(Buffer.from(secret).toString('base64'));

    const del = await fetch(`${gw.url}/v1/settings/provider-keys/openai`, { method: 'DELETE', headers: { authorization: `Bearer ${t.api_key}` } });
    expect(del.status).toBe(204);
    expect(((await (await fetch(`${gw.url}/v1/settings/provider-keys`, { headers: authed(t.api_key) })).json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("keeps one tenant's provider keys invisible to another", async () => {
    const a = await signup(gw);
    const b = await signup(gw);
    await fetch(`${gw.url}/v1/settings/provider-keys/anthropic`, { method: 'PUT', headers: authed(a.api_key), body: JSON.stringify({ key: 'sk-ant-secret-123456' }) });
    const list = (await (await fetch(`${gw.url}/v1/settings/provider-keys`, { headers: authed(b.api_key) })).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
    const del = await fetch(`${gw.url}/v1/settings/provider-keys/anthropic`, { method: 'DELETE', headers: { authorization: `Bearer ${b.api_key}` } });
    expect(del.status).toBe(404);
    expect(gw.services.providerKeys.reveal(a.account_id, 'anthropic')).toBe('sk-ant-secret-123456');
  });

  it('refuses a malformed provider name and an empty key with 422', async () => {
    const t = await signup(gw);
    const bad = await fetch(`${gw.url}/v1/settings/provider-keys/Open_AI!`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ key: 'sk-12345678' }) });
    expect(bad.status).toBe(422);
    const empty = await fetch(`${gw.url}/v1/settings/provider-keys/openai`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ key: '' }) });
    expect(empty.status).toBe(422);
    expect(((await empty.json()) as { error: { param: string } }).error.param).toBe('key');
  });
});
