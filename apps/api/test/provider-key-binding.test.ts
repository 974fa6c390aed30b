// A client's provider key goes only to the vendor it was sent for (issue 30): the bare
// x-provider-key is bound to the pinned model's vendor, or on a routed model to the baseline's
// (the model the call goes to unrouted); x-provider-key-<vendor> names one vendor; routing chooses only among vendors it holds a key for,
// and never shows one vendor's key to another. Two mock vendors record every header.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor, type RecordedRequest } from '@optimizer/mock-providers';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

const CLIENT_OPENAI = 'sk-client-openai-0123456789';
const CLIENT_MISTRAL = 'sk-client-mistral-0123456789';
const PLATFORM_OPENAI = 'sk-platform-openai-0123456789';
const PLATFORM_MISTRAL = 'sk-platform-mistral-0123456789';

let openai: MockVendor;
let mistral: MockVendor;
/** Both vendors on the platform's keys. */
let keyed: TestGateway;
/** No platform key for either vendor: only what the client sends. */
let keyless: TestGateway;
beforeAll(async () => {
  openai = await startOpenAIMock();
  mistral = await startOpenAIMock();
  const vendors = { OPENAI_BASE_URL: openai.url, MISTRAL_BASE_URL: mistral.url, UPSTREAM_MAX_RETRIES: '0' };
  keyed = await startGateway({ env: { ...vendors, OPENAI_API_KEY: PLATFORM_OPENAI, MISTRAL_API_KEY: PLATFORM_MISTRAL } });
  keyless = await startGateway({ env: vendors });
});
afterAll(async () => {
  await keyed?.close();
  await keyless?.close();
  await openai?.close();
  await mistral?.close();
});
afterEach(() => {
  openai.reset();
  mistral.reset();
});

const chat = (gw: TestGateway, key: string, model: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Which vendor am I on?' }] }) });
/** Every header value a vendor received, flattened. */
const seen = (requests: RecordedRequest[]): string[] => requests.flatMap((r) => Object.values(r.headers).flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])));
const bearers = (requests: RecordedRequest[]) => new Set(requests.map((r) => r.headers.authorization));

describe('an auto call', { timeout: 60_000 }, () => {
  it("never shows the client's key for one vendor to the other, when routing serves from the other", async () => {
    const t = await signup(keyed);
    const put = await fetch(`${keyed.url}/v1/settings/routing`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ allowed_providers: ['openai', 'mistral'], baseline_model: 'mistral-large-latest' }) });
    expect(put.status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const r = await chat(keyed, t.api_key, 'auto', { 'x-provider-key-openai': CLIENT_OPENAI });
      expect(r.status).toBe(200);
    }
    expect(mistral.requests.length).toBeGreaterThan(0);
    expect(seen(mistral.requests).some((v) => v.includes(CLIENT_OPENAI))).toBe(false);
    expect(bearers(mistral.requests)).toEqual(new Set([`Bearer ${PLATFORM_MISTRAL}`]));
    // whatever went to OpenAI (a probe, a judge) went on the client's OpenAI key, never the platform's
    for (const b of bearers(openai.requests)) expect(b).toBe(`Bearer ${CLIENT_OPENAI}`);
  });

  it("binds a bare x-provider-key to the baseline's vendor (the model the call goes to unrouted), never another", async () => {
    const t = await signup(keyed);
    const put = await fetch(`${keyed.url}/v1/settings/routing`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ allowed_providers: ['openai', 'mistral'], baseline_model: 'mistral-large-latest' }) });
    expect(put.status).toBe(200);
    for (const model of ['auto', 'discover', 'auto:fast']) {
      const r = await chat(keyed, t.api_key, model, { 'x-provider-key': CLIENT_MISTRAL });
      expect(r.status, model).toBe(200);
    }
    expect(mistral.requests.length).toBeGreaterThan(0);
    expect(seen(openai.requests).some((v) => v.includes(CLIENT_MISTRAL))).toBe(false);
    for (const b of bearers(openai.requests)) expect(b).toBe(`Bearer ${PLATFORM_OPENAI}`);
    expect(bearers(mistral.requests)).toEqual(new Set([`Bearer ${CLIENT_MISTRAL}`]));
  });

  it('with no key but the bare one, an auto call is served only by the vendor it was bound to', async () => {
    const t = await signup(keyless);
    const put = await fetch(`${keyless.url}/v1/settings/routing`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ allowed_providers: ['openai', 'mistral'] }) });
    expect(put.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const r = await chat(keyless, t.api_key, 'auto', { 'x-provider-key': CLIENT_OPENAI });
      expect(r.status).toBe(200);
    }
    expect(mistral.requests).toHaveLength(0);
    expect(bearers(openai.requests)).toEqual(new Set([`Bearer ${CLIENT_OPENAI}`]));
  });

  it('routes only among vendors it holds a key for: with only a Mistral key sent, OpenAI is never called', async () => {
    const t = await signup(keyless);
    for (let i = 0; i < 3; i++) {
      const r = await chat(keyless, t.api_key, 'auto', { 'x-provider-key-mistral': CLIENT_MISTRAL });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-optimizer-model')).toMatch(/stral/);
    }
    expect(openai.requests).toHaveLength(0);
    expect(bearers(mistral.requests)).toEqual(new Set([`Bearer ${CLIENT_MISTRAL}`]));
    // with no key for any vendor, there is nothing to route to
    const none = await chat(keyless, t.api_key, 'auto');
    expect(none.status).toBe(400);
    expect(openai.requests).toHaveLength(0);
  });
});

describe('a pinned call', { timeout: 60_000 }, () => {
  it("sends the bare x-provider-key to the pinned model's vendor only", async () => {
    const t = await signup(keyed);
    const r = await chat(keyed, t.api_key, 'mistral-small-latest', { 'x-provider-key': CLIENT_MISTRAL });
    expect(r.status).toBe(200);
    expect(bearers(mistral.requests)).toEqual(new Set([`Bearer ${CLIENT_MISTRAL}`]));
    expect(openai.requests).toHaveLength(0);
  });

  it('takes the per-vendor form for its vendor, and ignores the form for another vendor', async () => {
    const t = await signup(keyed);
    const own = await chat(keyed, t.api_key, 'gpt-4o-mini', { 'x-provider-key-openai': CLIENT_OPENAI, 'x-provider-key-mistral': CLIENT_MISTRAL });
    expect(own.status).toBe(200);
    expect(bearers(openai.requests)).toEqual(new Set([`Bearer ${CLIENT_OPENAI}`]));
    expect(seen(openai.requests).some((v) => v.includes(CLIENT_MISTRAL))).toBe(false);
    openai.reset();
    const other = await chat(keyed, t.api_key, 'gpt-4o-mini', { 'x-provider-key-mistral': CLIENT_MISTRAL });
    expect(other.status).toBe(200);
    expect(bearers(openai.requests)).toEqual(new Set([`Bearer ${PLATFORM_OPENAI}`]));
    expect(mistral.requests).toHaveLength(0);
  });
});
