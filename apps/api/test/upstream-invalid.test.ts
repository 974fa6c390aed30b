// A vendor's 200 that is not the vendor's shape ({"hello":"world"}) is a 502 upstream_invalid,
// never a 200: on chat, on a stream (its error event; the call is metered 502) and on
// embeddings. The raw body reaches the log, truncated and with the key redacted, never the
// client. Each adapter checks the minimal shape its translator reads.
import { createServer, type Server } from 'node:http';
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
import { callRecords } from './support/vendor.ts';

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

  it('ends a stream with an upstream_invalid error event, no [DONE], and meters the call 502', async () => {
    const r = await post('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const text = await r.text();
    expect(text).not.toContain('hello');
    expect(text).not.toContain('[DONE]');
    expect(text).toContain('"code":"upstream_invalid"');
    const rec = (await callRecords(gw, tenant.account_id)).find((c) => c.id === r.headers.get('x-optimizer-call-id'));
    expect(rec).toMatchObject({ status: 502, error_code: 'upstream_invalid' });
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
