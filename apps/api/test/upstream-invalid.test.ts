// A vendor's 200 that is not the vendor's shape ({"hello":"world"}) is a 502 upstream_invalid,
// never a 200: on chat, on a stream whose first event is not the vendor's (a real 502 before
// any byte; a later bad event ends the relayed stream with an error event) and on embeddings.
// The raw body reaches the log, truncated and with the key redacted, never the client. Each
// adapter checks the minimal shape its translator reads. A malformed answer is a vendor fault:
// the call fails over to the next vendor, and repeated ones open that vendor+key's circuit.
import { createServer, type Server } from 'node:http';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { failoverProfile } from './support/profiles.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnthropicResponse } from '../src/providers/anthropic/response.ts';
import { anthropicStreamDecoder } from '../src/providers/anthropic/stream.ts';
import { parseConverseResponse } from '../src/providers/bedrock/response.ts';
import { parseGeminiResponse } from '../src/providers/gemini/response.ts';
import { geminiStreamDecoder } from '../src/providers/gemini/stream.ts';
import { openAIStreamDecoder, parseOpenAIResponse } from '../src/providers/openai/adapter.ts';
import { parseCompletion } from '../src/providers/openai-compatible/response.ts';
import { compatStreamDecoder } from '../src/providers/openai-compatible/stream.ts';
import { profileFor } from '../src/providers/openai-compatible/vendors.ts';
import type { CallTarget } from '../src/providers/types.ts';
import { VendorShapeError } from '../src/providers/vendor-shape.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { allowAnyFailover, callRecords } from './support/vendor.ts';

const KEY = 'sk-platform-key-the-vendor-echoes';
const WRONG = '{"hello":"world"}';

let stub: Server;
let requests = 0;
let gw: TestGateway;
let tenant: { api_key: string; account_id: string };

beforeAll(async () => {
  // a vendor that answers every call 200 with JSON that is not its shape, echoing the key it was sent
  stub = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests++;
      const echo = JSON.stringify({ hello: 'world', echo: req.headers.authorization ?? '' });
      if (req.url?.endsWith('/chat/completions') && (JSON.parse(body) as { stream?: boolean }).stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${echo}\n\ndata: [DONE]\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(echo);
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const port = (stub.address() as { port: number }).port;
  gw = await startGateway({ env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: KEY, UPSTREAM_MAX_RETRIES: '0', CIRCUIT_FAILURES: '1000' } });
  tenant = await signup(gw);
});
afterAll(async () => {
  await gw?.close();
  await new Promise((r) => stub.close(r));
});

const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: authed(tenant.api_key), body: JSON.stringify(body) });

function expectLogged(): void {
  const line = gw.logs.find((l) => l.includes('vendor answer not in its API shape'));
  expect(line).toBeDefined();
  expect(line).toContain('hello');
  expect(line).toContain('[redacted]');
  expect(line).not.toContain(KEY);
  gw.logs.length = 0;
}

describe('a vendor 200 not in its shape, through the gateway', () => {
  it('is a 502 upstream_invalid on chat, with the body in the log and not in the answer', async () => {
    const r = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.status).toBe(502);
    const text = await r.text();
    expect(text).not.toContain('hello');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'upstream_invalid', type: 'upstream_error' } });
    expectLogged();
  });

  it('answers a stream whose first event is not the vendor’s with a real 502 in the envelope, never a 200, metered once', async () => {
    const before = (await callRecords(gw, tenant.account_id)).length;
    const r = await post('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(r.status).toBe(502);
    expect(r.headers.get('content-type')).toContain('application/json');
    const text = await r.text();
    expect(text).not.toContain('hello');
    expect(text).not.toContain('data:');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'upstream_invalid', type: 'upstream_error' } });
    const records = await callRecords(gw, tenant.account_id);
    expect(records).toHaveLength(before + 1);
    expect(records[0]).toMatchObject({ status: 502, error_code: 'upstream_invalid' });
    expectLogged();
  });

  it('is a 502 upstream_invalid on embeddings', async () => {
    const r = await post('/v1/embeddings', { model: 'text-embedding-3-small', input: 'hi' });
    expect(r.status).toBe(502);
    const text = await r.text();
    expect(text).not.toContain('hello');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'upstream_invalid' } });
    expectLogged();
    expect(requests).toBe(3); // one vendor call each: a malformed answer is not asked again of the same vendor
  });
});

describe('a malformed answer is a vendor fault: failover and the circuit', () => {
  const SPARE_KEY = 'sk-spare-vendor-key';
  const TENANT_KEY = 'sk-tenant-own-openai-key';
  const CHUNK = (content: string) => JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
  let bad: Server;
  let badCalls = 0;
  let release = () => {};
  let spare: MockVendor;
  let gw2: TestGateway;
  let t2: { api_key: string; account_id: string };


  beforeAll(async () => {
    // the "openai" vendor: what it streams depends on the model asked for; a JSON answer is never its shape
    bad = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        badCalls++;
        const j = JSON.parse(body) as { model: string; stream?: boolean };
        if (!j.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end(WRONG);
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (j.model === 'error-first-model') return void res.end(`data: ${JSON.stringify({ error: { message: `overloaded ${KEY}`, type: 'server_error', code: 'overloaded' } })}\n\n`);
        if (j.model === 'late-bad-model') {
          // the rest only once the client has its head: the bad event comes after relayed content
          res.write(`data: ${CHUNK('fine so far')}\n\n`);
          release = () => res.end(`data: ${WRONG}\n\ndata: [DONE]\n\n`);
          return;
        }
        res.end(`data: ${WRONG}\n\ndata: [DONE]\n\n`);
      });
    });
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r));
    spare = await startOpenAIMock({ apiKey: SPARE_KEY });
    const port = (bad.address() as { port: number }).port;
    gw2 = await startGateway({
      env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: KEY, MISTRAL_BASE_URL: spare.url, MISTRAL_API_KEY: SPARE_KEY, UPSTREAM_MAX_RETRIES: '0', CIRCUIT_FAILURES: '3', CIRCUIT_COOLDOWN_MS: '60000' },
    });
    const conn = gw2.services.db.em().getConnection();
    const models = [failoverProfile('primary-model', 'openai', ['backup-model']), failoverProfile('backup-model', 'mistral', []), failoverProfile('lonely-model', 'openai', []), failoverProfile('error-first-model', 'openai', []), failoverProfile('late-bad-model', 'openai', [])];
    for (const p of models) await conn.execute(`insert into catalog_models (model, provider, profile, disabled) values (?, ?, ?, false)`, [p.model, p.provider, JSON.stringify(p)]);
    await gw2.services.catalog.changed();
    t2 = await signup(gw2);
    await allowAnyFailover(gw2.url, t2.api_key); // backup-model is another model, not primary-model elsewhere
  });
  afterAll(async () => {
    await gw2?.close();
    await spare?.close();
    await new Promise((r) => bad.close(r));
  });

  const ask = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${gw2.url}/v1/chat/completions`, { method: 'POST', headers: authed(t2.api_key, headers), body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }) });

  it('serves a chat call from the failover vendor when the first answers out of its shape', async () => {
    const before = badCalls;
    const r = await ask({ model: 'primary-model' });
    expect(r.status).toBe(200);
    const j = (await r.json()) as { choices: { message: { content: string } }[] };
    expect(typeof j.choices[0]!.message.content).toBe('string');
    expect(r.headers.get('x-optimizer-model')).toBe('backup-model');
    expect(badCalls).toBe(before + 1); // the malformed vendor was asked once, then the next vendor
    expect(spare.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SPARE_KEY}`);
    expect(gw2.logs.some((l) => l.includes('vendor answer not in its API shape') && !l.includes(KEY))).toBe(true); // the one left behind is logged, redacted
  });

  it('serves a stream from the failover vendor when the first one’s first event is out of its shape', async () => {
    const r = await ask({ model: 'primary-model', stream: true });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    expect(r.headers.get('x-optimizer-model')).toBe('backup-model');
    const text = await r.text();
    expect(text).not.toContain('hello');
    expect(text).not.toContain('"error"');
    expect(text).toContain('"object":"chat.completion.chunk"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('answers a vendor error that opens a stream, before any content, as a real error in our words', async () => {
    const r = await ask({ model: 'error-first-model', stream: true }, { 'x-provider-key': TENANT_KEY.replace('own', 'other') });
    expect(r.status).toBe(502);
    const text = await r.text();
    expect(text).not.toContain('data:');
    expect(text).not.toContain('overloaded sk-');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'upstream_error', vendor_type: 'server_error', vendor_code: 'overloaded' } });
  });

  it('keeps a stream that went bad after content a 200 that ends with an error event and no [DONE]', async () => {
    const r = await ask({ model: 'late-bad-model', stream: true }, { 'x-provider-key': TENANT_KEY.replace('own', 'third') });
    expect(r.status).toBe(200); // the head left with the first event
    release();
    const text = await r.text();
    expect(text).toContain('fine so far');
    expect(text).toContain('"code":"upstream_invalid"');
    expect(text).not.toContain('hello');
    expect(text).not.toContain('[DONE]');
  });

  it('opens the circuit of that vendor and key after repeated malformed answers (chat and stream): the next call gets Retry-After', async () => {
    const own = { 'x-provider-key': TENANT_KEY };
    const codes: string[] = [];
    for (const stream of [false, true, false]) {
      const r = await ask({ model: 'lonely-model', stream }, own);
      expect(r.status).toBe(502);
      codes.push(((await r.json()) as { error: { code: string } }).error.code);
    }
    expect(codes).toEqual(['upstream_invalid', 'upstream_invalid', 'upstream_invalid']);
    const before = badCalls;
    for (const stream of [false, true]) {
      const open = await ask({ model: 'lonely-model', stream }, own);
      expect(open.status).toBe(502);
      expect(Number(open.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await open.json()) as { error: { code: string } }).error.code).toBe('upstream_error');
    }
    expect(badCalls).toBe(before); // an open circuit is not asked
    // another key's circuit on the same vendor is still closed: the platform key's calls are still dispatched
    const other = await ask({ model: 'lonely-model' });
    expect(other.status).toBe(502);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('upstream_invalid');
    expect(badCalls).toBe(before + 1);
  });
});

describe("each adapter's shape check", () => {
  const target = (name: string): CallTarget => ({ provider: { name, wire: 'openai', baseUrl: 'http://127.0.0.1:1' }, model: 'm', apiKey: 'k' });
  const refuses = (f: () => unknown) => expect(f).toThrow(VendorShapeError);

  it('refuses a completion without the parts its translator reads', () => {
    refuses(() => parseOpenAIResponse(WRONG));
    refuses(() => parseOpenAIResponse('{"choices":[{"index":0}]}'));
    expect(() => parseOpenAIResponse('{"choices":[{"message":{"role":"assistant","content":"ok"}}]}')).not.toThrow();
    refuses(() => parseCompletion(WRONG, profileFor('mistral')!));
    refuses(() => parseAnthropicResponse(WRONG));
    refuses(() => parseAnthropicResponse('{"content":[null]}'));
    refuses(() => parseGeminiResponse(WRONG, target('gemini')));
    refuses(() => parseGeminiResponse('{"candidates":{"x":1}}', target('gemini')));
    expect(() => parseGeminiResponse('{"promptFeedback":{"blockReason":"SAFETY"}}', target('gemini'))).not.toThrow();
    refuses(() => parseConverseResponse(WRONG, target('bedrock')));
    refuses(() => parseConverseResponse('{"output":{"message":{"content":"text"}}}', target('bedrock')));
  });

  it('refuses a stream event that is not the vendor’s', () => {
    const event = Buffer.from(`data: ${WRONG}\n\n`);
    refuses(() => openAIStreamDecoder().push(event));
    refuses(() => compatStreamDecoder(profileFor('mistral')!).push(event));
    refuses(() => anthropicStreamDecoder('anthropic').push(Buffer.from(`event: x\ndata: ${WRONG}\n\n`)));
    refuses(() => geminiStreamDecoder(target('gemini')).push(event));
    refuses(() => geminiStreamDecoder(target('gemini')).push(Buffer.from('data: not json\n\n')));
    // the vendors' own events still pass
    expect(openAIStreamDecoder().push(Buffer.from('data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'))).toHaveLength(1);
    expect(anthropicStreamDecoder('anthropic').push(Buffer.from('event: ping\ndata: {"type":"ping"}\n\n'))).toEqual([]);
  });
});
