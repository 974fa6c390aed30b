import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../src/index.ts';
import { completion, startServer, type TestServer } from './server.ts';

const messages = [{ role: 'user', content: 'hello' }];
let server: TestServer;
let client: OptimizerClient;

beforeEach(async () => {
  server = await startServer({ 'POST /v1/chat/completions': { body: completion() } });
  client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
});
afterEach(() => server.close());

describe('completions', () => {
  it('sends the bearer key, the idempotency key and the provider key', async () => {
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages }, { idempotencyKey: 'idem-1', providerKey: 'sk-vendor-123' });
    const [req] = server.requests;
    expect(req?.headers.authorization).toBe('Bearer sk-opt-tenant');
    expect(req?.headers['idempotency-key']).toBe('idem-1');
    expect(req?.headers['x-provider-key']).toBe('sk-vendor-123');
    expect(req?.headers['content-type']).toBe('application/json');
  });

  it('leaves out the idempotency and provider key headers when none are given', async () => {
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(server.requests[0]?.headers).not.toHaveProperty('idempotency-key');
    expect(server.requests[0]?.headers).not.toHaveProperty('x-provider-key');
  });

  it('sends the body with its optimizer annotation and other OpenAI fields as given', async () => {
    const optimizer = { step: { id: 'plan', quality: { min_score: 0.8 } }, intent: { objective: 'cost' as const } };
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, temperature: 0.2, seed: 7, optimizer });
    expect(server.requests[0]?.body).toEqual({ model: 'gpt-4o-mini', messages, temperature: 0.2, seed: 7, optimizer });
    expect(res.optimizer.saving).toBe(0.008);
    expect(res.choices[0]?.message.content).toBe('hi');
  });

  it('puts the gateway call id on the answer and keeps the response headers beside the body', async () => {
    server.routes.set('POST /v1/chat/completions', { headers: { 'x-optimizer-call-id': 'call_42', 'x-optimizer-model': 'gpt-4o-mini', 'x-optimizer-cache': 'miss' }, body: completion() });
    const res = await client.chat.completions.create({ model: 'auto', messages });
    expect(res.call_id).toBe('call_42');
    expect(res.headers.get('x-optimizer-model')).toBe('gpt-4o-mini');
    expect(res.headers.get('X-Optimizer-Cache')).toBe('miss');
    // the headers do not print or serialize with the answer; the call id does
    expect(Object.keys(res)).not.toContain('headers');
    expect(JSON.parse(JSON.stringify(res))).toEqual({ ...completion(), call_id: 'call_42' });
  });

  it('says when an answer carries no call id', async () => {
    const res = await client.chat.completions.create({ model: 'auto', messages });
    expect(res.call_id).toBeNull();
  });

  it('refuses a malformed optimizer annotation without sending anything', async () => {
    const bad = { model: 'm', messages, optimizer: { run: { seq: -1 } } };
    const err = await client.chat.completions.create(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    expect(err).toMatchObject({ status: 0, code: 'client_validation', param: 'optimizer.run.seq' });
    expect(server.requests).toHaveLength(0);
  });

  it('accepts a base URL that ends in /v1', async () => {
    const c = new OptimizerClient({ baseURL: `${server.url}/v1/`, apiKey: 'sk-opt-tenant' });
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });

  it('uses the fetch passed in the options', async () => {
    const seen: string[] = [];
    const c = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant', fetch: (input, init) => (seen.push(String(input)), fetch(input, init)) });
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(seen).toEqual([`${server.url}/v1/chat/completions`]);
  });
});

describe('failures before a response', () => {
  it('refuses a tenant route without an apiKey before sending', async () => {
    const c = new OptimizerClient({ baseURL: server.url });
    await expect(c.agents.list()).rejects.toMatchObject({ status: 0, code: 'missing_api_key', endpoint: 'GET /v1/agents' });
    expect(server.requests).toHaveLength(0);
  });

  it('reports an unreachable gateway as status 0 with code connection_error', async () => {
    const c = new OptimizerClient({ baseURL: 'http://127.0.0.1:1', apiKey: 'sk-opt-tenant' });
    await expect(c.savings.get()).rejects.toMatchObject({ name: 'OptimizerError', status: 0, code: 'connection_error', endpoint: 'GET /v1/dashboard/savings' });
  });
});

describe('control plane', () => {
  it('signs up without a bearer and returns the first key', async () => {
    server.routes.set('POST /v1/signup', { status: 201, body: { api_key: 'sk-opt-new', account_id: 'acct_1', workflow_id: 'wf_1' } });
    const out = await OptimizerClient.signup(server.url, { company: 'Acme', email: 'a@acme.test' });
    expect(out).toEqual({ api_key: 'sk-opt-new', account_id: 'acct_1', workflow_id: 'wf_1' });
    expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
    expect(server.requests[0]?.body).toEqual({ company: 'Acme', email: 'a@acme.test' });
  });

  it('unwraps the data array of list routes', async () => {
    server.routes.set('GET /v1/agents', { body: { data: [{ id: 'wf_1', name: 'default' }] } });
    server.routes.set('GET /v1/agents/wf_1/keys', { body: { data: [{ id: 'key_1', hint: 'sk-opt-…abcd', created_at: 'x', revoked: false }] } });
    expect(await client.agents.list()).toEqual([{ id: 'wf_1', name: 'default' }]);
    expect((await client.agents.listKeys('wf_1'))[0]?.id).toBe('key_1');
  });

  it('creates agents and keys and revokes a key on their routes', async () => {
    server.routes.set('POST /v1/agents', { status: 201, body: { id: 'wf_2', name: 'triage', api_key: 'sk-opt-x', key_id: 'key_2' } });
    server.routes.set('POST /v1/agents/wf_2/keys', { status: 201, body: { id: 'key_3', api_key: 'sk-opt-y', hint: 'h' } });
    server.routes.set('DELETE /v1/agents/wf_2/keys/key_3', { status: 204 });
    expect((await client.agents.create({ name: 'triage' })).key_id).toBe('key_2');
    expect((await client.agents.createKey('wf_2')).api_key).toBe('sk-opt-y');
    await expect(client.agents.revokeKey('wf_2', 'key_3')).resolves.toBeUndefined();
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/agents', 'POST /v1/agents/wf_2/keys', 'DELETE /v1/agents/wf_2/keys/key_3']);
  });

  it('stores and removes a provider key with a {key} body', async () => {
    server.routes.set('PUT /v1/settings/provider-keys/openai', { body: { provider: 'openai', key_set: true } });
    server.routes.set('DELETE /v1/settings/provider-keys/openai', { status: 204 });
    server.routes.set('GET /v1/settings/provider-keys', { body: { data: [{ provider: 'openai', key_set: true, updated_at: 't' }] } });
    await client.providerKeys.set('openai', 'sk-vendor-123456');
    expect(server.requests[0]?.body).toEqual({ key: 'sk-vendor-123456' });
    expect(await client.providerKeys.list()).toHaveLength(1);
    await client.providerKeys.remove('openai');
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'GET', 'DELETE']);
  });

  it('refuses a provider name that is not a lowercase id without sending', async () => {
    await expect(client.providerKeys.set('Open AI', 'sk-vendor-123456')).rejects.toMatchObject({ status: 0, code: 'client_validation' });
    expect(server.requests).toHaveLength(0);
  });

  it('passes the calls and activity filters as query parameters', async () => {
    server.routes.set('GET /v1/calls', { body: { data: [] } });
    server.routes.set('GET /v1/activity', { body: { data: [] } });
    server.routes.set('GET /v1/dashboard/savings', { body: { baseline_cost: 1, actual_cost: 0.4, saving: 0.6 } });
    await client.calls.list({ agent: 'wf_1', limit: 20 });
    await client.calls.list();
    await client.activity.list({ limit: 5 });
    expect((await client.savings.get()).saving).toBe(0.6);
    expect(server.requests.map((r) => r.query.toString())).toEqual(['agent=wf_1&limit=20', '', 'limit=5', '']);
  });
});
