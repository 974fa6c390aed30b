// Production runs on stored keys (spec 4.5): a workflow in production sends its calls, pinned and
// routed, with the tenant's own provider keys only, never the platform's; without one the call is
// refused 409 `production_key_required`, naming the vendor, before any vendor is called. A
// workflow still tuning keeps the platform's keys.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

const TENANT_KEY = 'sk-tenant-openai-000000';
let rig: Rig;
let tuning: { workflow_id: string; api_key: string };

beforeAll(async () => {
  // the mock takes any key, so the test sees which one each call carried
  rig = await startRig({ vendorOptions: { apiKey: undefined } });
  const call = (method: string, path: string, body?: unknown) => fetch(`${rig.gw.url}${path}`, { method, headers: authed(rig.tenant.api_key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'before production' }] });
  expect((await call('POST', `/v1/workflows/${rig.tenant.workflow_id}/report/finalize`)).status).toBe(201);
  // production is entered by a managed subscription (billing-subscriptions.test.ts); here the stage is set as billing sets it
  await rig.gw.services.db.em().getConnection().execute(`update workflows set stage = 'production' where id = ?`, [rig.tenant.workflow_id]);
  await rig.gw.services.workflowLife.reload();
  expect(((await (await call('GET', `/v1/workflows/${rig.tenant.workflow_id}/stage`)).json()) as { stage: string }).stage).toBe('production');
  const agent = (await (await call('POST', '/v1/agents', { name: 'still tuning' })).json()) as { id: string; api_key: string };
  tuning = { workflow_id: agent.id, api_key: agent.api_key };
});
afterAll(async () => {
  await rig.close();
});

const ask = (model: string, key = rig.tenant.api_key, headers: Record<string, string> = {}, stream = false) =>
  fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], stream }) });

describe('a workflow in production', () => {
  it('is refused 409 production_key_required, pinned or routed, streamed or not, while the tenant stores no key, and no vendor is called', async () => {
    rig.vendor.reset();
    for (const [model, stream] of [['gpt-4o-mini', false], ['gpt-4o-mini', true], ['auto', false], ['auto', true]] as const) {
      const r = await ask(model, rig.tenant.api_key, {}, stream);
      expect(r.status, `${model} stream ${stream}`).toBe(409);
      const err = ((await r.json()) as { error: { code: string; type: string; message: string; providers: string[] } }).error;
      expect(err).toMatchObject({ code: 'production_key_required', type: 'conflict_error' });
      expect(err.providers).toContain('openai');
      expect(err.message).toMatch(/in production, which runs on the tenant's own provider keys, never the platform's/);
    }
    // embeddings too
    const embedded = await fetch(`${rig.gw.url}/v1/embeddings`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hello' }) });
    expect(embedded.status).toBe(409);
    expect(((await embedded.json()) as { error: { code: string } }).error.code).toBe('production_key_required');
    expect(rig.vendor.requests).toHaveLength(0);
  });

  it('runs on the stored key once there is one, pinned and routed, and never on the platform key', async () => {
    const put = await fetch(`${rig.gw.url}/v1/settings/provider-keys/openai`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ key: TENANT_KEY }) });
    expect(put.status).toBe(200);
    rig.vendor.reset();
    for (const model of ['gpt-4o-mini', 'auto']) {
      const r = await ask(model);
      expect(r.status, model).toBe(200);
      await r.text();
    }
    await rig.gw.learned();
    expect(rig.vendor.requests.length).toBeGreaterThanOrEqual(2);
    for (const q of rig.vendor.requests) expect(q.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    // a key the client sends for the vendor is the tenant's own too
    rig.vendor.reset();
    expect((await ask('gpt-4o-mini', rig.tenant.api_key, { 'x-provider-key-openai': 'sk-sent-by-client' })).status).toBe(200);
    expect(rig.vendor.requests[0]!.headers.authorization).toBe('Bearer sk-sent-by-client');
  });

  it('leaves a workflow still tuning on the platform key (its own tenant has a stored key, so stored wins there too)', async () => {
    // the control: the same tenant's tuning agent goes out with the stored key as before, and a fresh tenant on the platform's
    rig.vendor.reset();
    expect((await ask('gpt-4o-mini', tuning.api_key)).status).toBe(200);
    expect(rig.vendor.requests[0]!.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    const other = await fetch(`${rig.gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Fresh Co', email: 'fresh@example.com' }) });
    const fresh = (await other.json()) as { api_key: string };
    const client = new OpenAI({ baseURL: `${rig.gw.url}/v1`, apiKey: fresh.api_key, maxRetries: 0 });
    rig.vendor.reset();
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'tuning' }] });
    expect(rig.vendor.requests[0]!.headers.authorization).toBe(`Bearer ${PLATFORM_KEY}`);
  });
});
