import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError, parseSSE } from '../src/index.ts';
import { block, chunk, startServer, type TestServer } from './server.ts';

const messages = [{ role: 'user', content: 'hello' }];
const ev = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
let server: TestServer;
let client: OptimizerClient;

beforeEach(async () => {
  server = await startServer();
  client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
});
afterEach(() => server.close());

function streamOf(sse: string[]) {
  server.routes.set('POST /v1/chat/completions', { sse });
}

function textOf(body: string): ReadableStream<Uint8Array> {
  return new Response(body).body!;
}

describe('streamed completions', () => {
  it('yields each chunk and resolves finalOptimizer with the block on the last chunk before [DONE]', async () => {
    streamOf([ev(chunk('Hel')), ev(chunk('lo')), ev(chunk(null, { optimizer: block })), 'data: [DONE]\n\n']);
    const stream = client.chat.completions.stream({ model: 'm', messages }, { idempotencyKey: 'idem-s' });
    const text: string[] = [];
    for await (const c of stream) text.push(c.choices[0]?.delta.content ?? '');
    expect(text.join('')).toBe('Hello');
    await expect(stream.finalOptimizer()).resolves.toEqual(block);
    const [req] = server.requests;
    expect(req?.body.stream).toBe(true);
    expect(req?.headers.accept).toBe('text/event-stream');
    expect(req?.headers['idempotency-key']).toBe('idem-s');
  });

  it('hands the call id and headers the stream opened with to response(), before or after iterating', async () => {
    server.routes.set('POST /v1/chat/completions', { sse: [ev(chunk('Hi')), ev(chunk(null, { optimizer: block })), 'data: [DONE]\n\n'], headers: { 'x-optimizer-call-id': 'call_s1', 'x-optimizer-model': 'm-small' } });
    const stream = client.chat.completions.stream({ model: 'm', messages });
    const opened = await stream.response();
    expect(opened.call_id).toBe('call_s1');
    expect(opened.headers.get('x-optimizer-model')).toBe('m-small');
    const text: string[] = [];
    for await (const c of stream) text.push(c.choices[0]?.delta.content ?? '');
    expect(text.join('')).toBe('Hi');
    expect((await stream.response()).call_id).toBe('call_s1');
    // one request for both
    expect(server.requests).toHaveLength(1);
  });

  it('parses events split across writes, CRLF line endings and keep-alive comments', async () => {
    const last = ev(chunk(null, { optimizer: block })).replace(/\n/g, '\r\n');
    streamOf([': keep-alive\n\n', 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk",', '"created":1,"model":"m","choices":[{"index":0,"delta":{"content":"A"},"finish_reason":null}]}\r', '\n\r\n', last.slice(0, 17), last.slice(17), 'data: [DO', 'NE]\n\n']);
    const stream = client.chat.completions.stream({ model: 'm', messages });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.choices[0]?.delta.content).toBe('A');
    expect(chunks[1]?.optimizer).toEqual(block);
  });

  it('reads the stream itself when finalOptimizer is asked before anyone iterates', async () => {
    streamOf([ev(chunk('x')), ev(chunk(null, { optimizer: block })), 'data: [DONE]\n\n']);
    await expect(client.chat.completions.stream({ model: 'm', messages }).finalOptimizer()).resolves.toEqual(block);
  });

  it('sends nothing until iteration begins', async () => {
    streamOf(['data: [DONE]\n\n']);
    client.chat.completions.stream({ model: 'm', messages });
    await new Promise((r) => setTimeout(r, 20));
    expect(server.requests).toHaveLength(0);
  });

  it('rejects finalOptimizer when [DONE] arrives without an optimizer block', async () => {
    streamOf([ev(chunk('x')), 'data: [DONE]\n\n']);
    await expect(client.chat.completions.stream({ model: 'm', messages }).finalOptimizer()).rejects.toMatchObject({ code: 'missing_optimizer_block' });
  });

  it('throws when the stream ends before [DONE]', async () => {
    streamOf([ev(chunk('x'))]);
    const stream = client.chat.completions.stream({ model: 'm', messages });
    await expect((async () => { for await (const _ of stream); })()).rejects.toMatchObject({ code: 'stream_truncated' });
    await expect(stream.finalOptimizer()).rejects.toMatchObject({ code: 'stream_truncated' });
  });

  it('turns an error event mid-stream into an OptimizerError', async () => {
    streamOf([ev(chunk('x')), ev({ error: { message: 'The model provider failed.', type: 'upstream_error', code: 'upstream_error', param: null } })]);
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of client.chat.completions.stream({ model: 'm', messages })) seen.push(c.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['x']);
    expect(err).toBeInstanceOf(OptimizerError);
    expect(err).toMatchObject({ code: 'upstream_error', type: 'upstream_error', message: 'The model provider failed.', endpoint: 'POST /v1/chat/completions' });
  });

  it('throws the error response of a refused stream request before any chunk', async () => {
    server.routes.set('POST /v1/chat/completions', { status: 429, headers: { 'retry-after': '3' }, body: { error: { message: 'Too many requests.', type: 'rate_limit_error', code: 'rate_limited', param: null } } });
    const stream = client.chat.completions.stream({ model: 'm', messages });
    await expect(stream.finalOptimizer()).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 3 });
  });

  it('refuses to be iterated twice', async () => {
    streamOf(['data: [DONE]\n\n']);
    const stream = client.chat.completions.stream({ model: 'm', messages });
    for await (const _ of stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});

describe('parseSSE', () => {
  it('joins multi-line data, reads event names and ids, and skips comments', async () => {
    const events = [];
    for await (const e of parseSSE(textOf(':hi\nevent: note\nid: 7\ndata: a\ndata:b\n\ndata: last'))) events.push(e);
    expect(events).toEqual([
      { event: 'note', data: 'a\nb', id: '7' },
      { event: 'message', data: 'last', id: '7' },
    ]);
  });

  it('handles a CRLF and a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: h\u00e9llo \u20ac\r\n\r\ndata: b\r');
    const cut = [0, 8, 16, 18, bytes.length];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < cut.length - 1; i++) c.enqueue(bytes.slice(cut[i], cut[i + 1]));
        c.enqueue(new TextEncoder().encode('\n\r'));
        c.close();
      },
    });
    const events = [];
    for await (const e of parseSSE(body)) events.push(e.data);
    expect(events).toEqual(['h\u00e9llo \u20ac', 'b']);
  });
});
