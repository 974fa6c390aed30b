// A vendor's error text never reaches the tenant or the log: it is mapped onto our
// catalogue, and every secret the gateway sent (the platform's key, a tenant's
// x-provider-key, credential headers) is redacted wherever a vendor echoes it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../src/providers/anthropic/adapter.ts';
import { bedrockAdapter } from '../src/providers/bedrock/adapter.ts';
import { geminiAdapter } from '../src/providers/gemini/adapter.ts';
import { openaiAdapter } from '../src/providers/openai/adapter.ts';
import { openaiCompatibleAdapter } from '../src/providers/openai-compatible/adapter.ts';
import { redact, sentSecrets } from '../src/providers/redact.ts';
import type { CallTarget, ChatAdapter } from '../src/providers/types.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';

const PLATFORM_KEY = 'sk-platform-secret-0123456789abcdef';
const TENANT_VENDOR_KEY = 'sk-tenant-own-vendor-key-9876543210';
const VENDOR_TEXT = 'Incorrect API key provided';

let vendor: Loopback;
let gw: TestGateway;
let tenant: { api_key: string };

/** What the vendor answers next: a status and a JSON body, or an SSE stream. */
let answer: { status: number; json?: unknown; sse?: string[] } = { status: 200 };

beforeAll(async () => {
  vendor = await startLoopback((req, res) => {
    if (answer.sse) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of answer.sse) res.write(`data: ${e}\n\n`);
      res.end();
      return;
    }
    // a vendor that echoes whatever credential it was sent
    const sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const body = JSON.stringify(answer.json).replaceAll('$KEY', sent);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(body);
  });
  gw = await startGateway({ env: { OPENAI_BASE_URL: `${vendor.url}/v1`, OPENAI_API_KEY: PLATFORM_KEY, UPSTREAM_MAX_RETRIES: '0', CIRCUIT_FAILURES: '1000' } });
  tenant = await signup(gw);
});
afterAll(async () => {
  await gw.close();
  await vendor.close();
});
beforeEach(() => {
  gw.logs.length = 0;
});

const complete = (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(tenant.api_key, headers),
    body: JSON.stringify({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });

function expectClean(text: string, ...secrets: string[]) {
  for (const s of [...secrets, VENDOR_TEXT]) expect(text).not.toContain(s);
}

describe('vendor errors through the gateway', () => {
  it('answers a vendor 401 that echoes the platform key with the catalogued error, and logs neither key nor text', async () => {
    answer = { status: 401, json: { error: { message: `${VENDOR_TEXT}: $KEY. You can find your API key at ...`, type: 'invalid_request_error', code: 'invalid_api_key', param: null } } };
    const r = await complete();
    const text = await r.text();
    expect(r.status).toBe(401);
    expect(JSON.parse(text).error).toMatchObject({ code: 'upstream_auth', message: 'openai: The model provider refused the provider key.', vendor_status: 401, vendor_code: 'invalid_api_key' });
    expectClean(text, PLATFORM_KEY);
    await new Promise((r) => setTimeout(r, 50));
    expect(gw.logs.join('')).toContain('upstream_auth'); // the failure is logged ...
    expectClean(gw.logs.join(''), PLATFORM_KEY); // ... in our words only
  });

  it('redacts a key echoed in the fields that are kept (type, code, param)', async () => {
    answer = { status: 400, json: { error: { message: 'bad', type: '$KEY', code: '$KEY', param: '$KEY' } } };
    const r = await complete();
    const text = await r.text();
    expect(r.status).toBe(400);
    expect(JSON.parse(text).error.code).toBe('upstream_bad_request');
    expectClean(text, PLATFORM_KEY);
    expectClean(gw.logs.join(''), PLATFORM_KEY);
  });

  it("redacts a tenant's own x-provider-key the same way", async () => {
    answer = { status: 429, json: { error: { message: `${VENDOR_TEXT} $KEY`, type: 'requests', code: '$KEY' } } };
    const r = await complete({}, { 'x-provider-key': TENANT_VENDOR_KEY });
    const text = await r.text();
    expect(r.status).toBe(429);
    expect(vendor.seen.at(-1)!.headers.authorization).toBe(`Bearer ${TENANT_VENDOR_KEY}`);
    expectClean(text, TENANT_VENDOR_KEY, PLATFORM_KEY);
    expectClean(gw.logs.join(''), TENANT_VENDOR_KEY);
  });

  it('replaces an error inside a 200 stream with our words, keeping only identifier fields', async () => {
    // after content (an error before any is answered as a real HTTP error: upstream-invalid.test.ts)
    const chunk = JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] });
    answer = { status: 200, sse: [chunk, JSON.stringify({ error: { message: `${VENDOR_TEXT}: ${PLATFORM_KEY}`, type: 'server_error', code: PLATFORM_KEY } })] };
    const r = await complete({ stream: true });
    const text = await r.text();
    expect(text).toContain('openai reported an error in the stream.');
    expect(text).toContain('"type":"server_error"');
    expectClean(text, PLATFORM_KEY);
    expectClean(gw.logs.join(''), PLATFORM_KEY);
  });
});

describe('every adapter maps an echoing vendor error to our words', () => {
  const KEY = 'AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const target = (name: string, wire: CallTarget['provider']['wire']): CallTarget => ({ provider: { name, wire, baseUrl: 'http://127.0.0.1:9/v1' }, model: 'm', apiKey: KEY });
  const cases: [ChatAdapter, CallTarget, string][] = [
    [openaiAdapter, target('openai', 'openai'), JSON.stringify({ error: { message: `${VENDOR_TEXT} ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } })],
    [openaiCompatibleAdapter, target('groq', 'openai'), JSON.stringify({ error: { message: `${VENDOR_TEXT} ${KEY}`, type: 'invalid_request_error' } })],
    [anthropicAdapter, target('anthropic', 'anthropic'), JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `${VENDOR_TEXT} ${KEY}` } })],
    [geminiAdapter, target('gemini', 'gemini'), JSON.stringify({ error: { code: 400, message: `${VENDOR_TEXT} ${KEY}`, status: 'INVALID_ARGUMENT' } })],
    [bedrockAdapter, target('bedrock', 'bedrock'), JSON.stringify({ message: `${VENDOR_TEXT} ${KEY}` })],
  ];
  it.each(cases)('%#: the message is the catalogue’s and names the provider', (adapter, t, body) => {
    const e = adapter.mapError(403, {}, body, t);
    expect(e.code).toBe('upstream_auth');
    expect(e.message).toBe(`${t.provider.name}: The model provider refused the provider key.`);
    expect(JSON.stringify(e.toBody())).not.toContain(VENDOR_TEXT);
  });

  it('finds every secret a request carried: the key and its parts, credential headers, signed query parameters', () => {
    const secrets = sentSecrets(
      { apiKey: KEY },
      { url: new URL('http://127.0.0.1:9/v1/x?api-version=2024&sig=SIGNATURE-abcdef'), headers: { authorization: 'AWS4-HMAC-SHA256 Credential=AKIA/x, Signature=deadbeefcafe', 'x-goog-api-key': 'goog-key-123456', accept: 'application/json' } },
    );
    const text = `key ${KEY} id AKIAIOSFODNN7EXAMPLE sig SIGNATURE-abcdef hmac deadbeefcafe goog goog-key-123456 json application/json`;
    expect(redact(text, secrets)).toBe('key [redacted] id [redacted] sig [redacted] hmac [redacted] goog [redacted] json application/json');
  });
});
