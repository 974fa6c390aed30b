import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startGateway({ env: { BODY_LIMIT_BYTES: String(64 * 1024) } });
  key = (await signup(gw)).api_key;
});
afterAll(async () => {
  await gw.close();
});

type Envelope = { error: { message: string; type: string; code: string; param: string | null } };

describe('bad input gets a clear error in the REST envelope', () => {
  it('answers malformed JSON with 400 invalid_json', async () => {
    const r = await fetch(`${gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"company": ' });
    expect(r.status).toBe(400);
    const b = (await r.json()) as Envelope;
    expect(b.error).toMatchObject({ code: 'invalid_json', type: 'invalid_request_error' });
  });

  it('answers wrong types with 422 naming the field', async () => {
    const r = await fetch(`${gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 5, email: 'x@y.io' }) });
    expect(r.status).toBe(422);
    const b = (await r.json()) as Envelope;
    expect(b.error).toMatchObject({ code: 'validation_failed', param: 'company' });
    expect(b.error.message).toContain('company');
  });

  it('answers an unknown field with 422 naming it', async () => {
    const r = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: authed(key), body: JSON.stringify({ name: 'a', colour: 'red' }) });
    expect(r.status).toBe(422);
    expect(((await r.json()) as Envelope).error.param).toBe('colour');
  });

  it('answers an unknown path with the web app page and status 404', async () => {
    const r = await fetch(`${gw.url}/v1/no-such-route`);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(await r.text()).toContain('<!doctype html>');
  });

  it('answers a missing bearer and a bad bearer with 401', async () => {
    const none = await fetch(`${gw.url}/v1/agents`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as Envelope).error.code).toBe('missing_api_key');
    const bad = await fetch(`${gw.url}/v1/agents`, { headers: { authorization: 'Bearer sk-opt-not-a-real-key' } });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as Envelope).error.code).toBe('invalid_api_key');
    const notOurs = await fetch(`${gw.url}/v1/agents`, { headers: { authorization: 'Bearer sk-proj-openai-key' } });
    expect(notOurs.status).toBe(401);
  });

  it('answers an oversized body with 413', async () => {
    const r = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: authed(key), body: JSON.stringify({ name: 'x'.repeat(70 * 1024) }) });
    expect(r.status).toBe(413);
    expect(((await r.json()) as Envelope).error.code).toBe('payload_too_large');
  });

  it('answers a non-JSON content type with 415', async () => {
    const r = await fetch(`${gw.url}/v1/agents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, body: 'name=x' });
    expect(r.status).toBe(415);
  });

  it('refuses admin routes without the admin key', async () => {
    const r = await fetch(`${gw.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${key}` } });
    expect(r.status).toBe(401);
    expect(((await r.json()) as Envelope).error.code).toBe('invalid_admin_key');
    const ok = await fetch(`${gw.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${gw.adminKey}` } });
    expect(ok.status).toBe(200);
  });
});

describe('health and metrics', () => {
  it('reports live, ready (database and hot store reachable) and Prometheus metrics', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { checks: Record<string, string> };
    expect(body.checks.database).toBe('ok');
    if (gw.services.hot.kind === 'redis') expect(body.checks.redis).toBe('ok');
    const m = await fetch(`${gw.url}/metrics`);
    expect(m.headers.get('content-type')).toContain('text/plain');
    expect(await m.text()).toMatch(/optimizer_http_requests_total\{route="\/healthz",status="200"\} \d+/);
  });

  it('serves the web app under /optimizer/', async () => {
    const r = await fetch(`${gw.url}/optimizer/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
  });
});
