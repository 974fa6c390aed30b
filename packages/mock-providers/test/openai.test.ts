import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '../src/index.ts';
import { readUntilReset } from './read-until-reset.ts';

 
type Json = Record<string, any>;

let vendor: MockVendor;

beforeAll(async () => {
  vendor = await startOpenAIMock();
});
afterAll(async () => {
  await vendor.close();
});
beforeEach(() => vendor.reset());

const hello = [{ role: 'user', content: 'Hello there, how are you today?' }];

function post(body: unknown, init: RequestInit & { url?: string } = {}): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return fetch(`${init.url ?? vendor.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw,
    ...init,
  });
}

/** All `data:` payloads of an SSE body; `[DONE]` stays a string. */
async function sseEvents(res: Response): Promise<(Json | string)[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Json)));
}

async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
};

describe('plain calls', () => {
  it('answers with a chat.completion echoing the last user message and usage details', async () => {
    const res = await post({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, ...hello] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as Json;
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.choices[0].message).toMatchObject({ role: 'assistant', content: 'mock answer to: Hello there, how are you today?' });
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.prompt_tokens).toBe(Math.ceil('Be brief.Hello there, how are you today?'.length / 4));
    expect(body.usage.completion_tokens).toBe(Math.ceil(body.choices[0].message.content.length / 4));
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(body.usage.prompt_tokens_details).toMatchObject({ cached_tokens: 0 });
    expect(body.usage.completion_tokens_details).toMatchObject({ reasoning_tokens: 0 });
  });

  it('truncates the echoed user text to 60 characters', async () => {
    const body = (await (await post({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(100) }] })).json()) as Json;
    expect(body.choices[0].message.content).toBe(`mock answer to: ${'x'.repeat(60)}`);
  });

  it('accepts any path that ends in /chat/completions', async () => {
    const base = vendor.url.replace(/\/v1$/, '');
    const res = await post({ model: 'm', messages: hello }, { url: `${base}/openai/deployments/x` });
    expect(res.status).toBe(200);
    expect(vendor.requests[0]?.path).toBe('/openai/deployments/x/chat/completions');
  });

  it('records each request with method, path, headers and parsed body', async () => {
    await post({ model: 'm', messages: hello }, { headers: { 'content-type': 'application/json', 'x-test': 'yes' } });
    expect(vendor.requests).toHaveLength(1);
    const recorded = vendor.requests[0]!;
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'm', messages: hello } });
    expect(recorded.headers['x-test']).toBe('yes');
    expect(JSON.parse(recorded.rawBody)).toEqual(recorded.body);
    expect(recorded.receivedAt).toBeGreaterThan(0);
  });

  it('records nothing when started with record: false', async () => {
    const quiet = await startOpenAIMock({ record: false });
    await post({ model: 'm', messages: hello }, { url: quiet.url });
    expect(quiet.requests).toHaveLength(0);
    await quiet.close();
  });

  it('lists models on GET /v1/models', async () => {
    const body = (await (await fetch(`${vendor.url}/models`)).json()) as Json;
    expect(body.object).toBe('list');
    expect(body.data.map((m: Json) => m.id)).toContain('gpt-4o-mini');
  });

  it('requires the configured API key and answers 401 in the OpenAI error envelope', async () => {
    const locked = await startOpenAIMock({ apiKey: 'sk-test-123456' });
    const missing = await post({ model: 'm', messages: hello }, { url: locked.url });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as Json).error).toMatchObject({ type: 'invalid_request_error', param: null });
    const wrong = await post({ model: 'm', messages: hello }, { url: locked.url, headers: { authorization: 'Bearer sk-wrong-000000' } });
    expect(((await wrong.json()) as Json).error.code).toBe('invalid_api_key');
    const right = await post({ model: 'm', messages: hello }, { url: locked.url, headers: { authorization: 'Bearer sk-test-123456' } });
    expect(right.status).toBe(200);
    await locked.close();
  });
});

describe('streaming', () => {
  it('streams a role chunk, word deltas, a finish chunk and [DONE] without usage when include_usage is off', async () => {
    const res = await post({ model: 'gpt-4o-mini', stream: true, messages: hello });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await sseEvents(res);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as Json[];
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && !('usage' in c))).toBe(true);
    expect(chunks[0]!.choices[0].delta).toMatchObject({ role: 'assistant', content: '' });
    const contentChunks = chunks.filter((c) => typeof c.choices[0]?.delta.content === 'string' && c.choices[0].delta.content !== '');
    expect(contentChunks.length).toBeGreaterThan(3);
    expect(contentChunks.map((c) => c.choices[0].delta.content).join('')).toBe('mock answer to: Hello there, how are you today?');
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
  });

  it('streams a final chunk with empty choices and usage when include_usage is true', async () => {
    const res = await post({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: hello });
    const events = await sseEvents(res);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as Json[];
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(last.usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
  });

  it('streams a tool call as a head delta followed by argument fragments that join to schema-valid JSON', async () => {
    const res = await post({ model: 'gpt-4o-mini', stream: true, messages: hello, tools: [weatherTool] });
    const chunks = (await sseEvents(res)).slice(0, -1) as Json[];
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(calls.length).toBeGreaterThan(2);
    const args = calls.map((c: Json) => c.function.arguments).join('');
    expect(JSON.parse(args)).toEqual({ city: 'mock' });
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('tool_calls');
  });

  it('flushes each chunk on its own as it is written when chunkDelayMs is set', async () => {
    const slowStream = await startOpenAIMock({ chunkDelayMs: 80 });
    const res = await post({ model: 'm', stream: true, messages: hello }, { url: slowStream.url });
    const reader = res.body!.getReader();
    const start = Date.now();
    const first = await reader.read();
    const firstAt = Date.now() - start;
    while (!(await reader.read()).done);
    const totalAt = Date.now() - start;
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: /);
    expect(totalAt - firstAt).toBeGreaterThanOrEqual(400);
    await slowStream.close();
  });
});

describe('deterministic replies', () => {
  it('calls the forced tool when tool_choice names it', async () => {
    const other = { type: 'function', function: { name: 'noop' } };
    const body = (await (
      await post({ model: 'm', messages: hello, tools: [other, weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } })
    ).json()) as Json;
    expect(body.choices[0].message.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city":"mock"}' });
    expect(body.choices[0].message.content).toBeNull();
  });

  it('answers in text when tool_choice is none or the last message is a tool result', async () => {
    const none = (await (await post({ model: 'm', messages: hello, tools: [weatherTool], tool_choice: 'none' })).json()) as Json;
    expect(none.choices[0].message.tool_calls).toBeUndefined();
    const afterTool = [
      ...hello,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ];
    const body = (await (await post({ model: 'm', messages: afterTool, tools: [weatherTool] })).json()) as Json;
    expect(body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'mock answer to: Hello there, how are you today?' } });
  });

  it('returns JSON content that fits a json_schema response format', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, score: { type: 'number' }, ok: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['title', 'score', 'ok', 'tags'],
      additionalProperties: false,
    };
    const res = await post({ model: 'm', messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'r', strict: true, schema } } });
    const body = (await res.json()) as Json;
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ title: 'mock', score: 0, ok: false, tags: [] });
  });

  it('returns a JSON object for a json_object response format', async () => {
    const res = await post({ model: 'm', messages: [{ role: 'user', content: 'reply in json' }], response_format: { type: 'json_object' } });
    const body = (await res.json()) as Json;
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ answer: 'mock answer to: reply in json' });
  });

  it('replies with the scripted content, tool calls, usage and finish reason until reset', async () => {
    vendor.script({ content: 'scripted', usage: { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 40, reasoning_tokens: 5 } });
    const first = (await (await post({ model: 'm', messages: hello })).json()) as Json;
    const second = (await (await post({ model: 'm', messages: hello })).json()) as Json;
    for (const body of [first, second]) {
      expect(body.choices[0].message.content).toBe('scripted');
      expect(body.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
      expect(body.usage.prompt_tokens_details.cached_tokens).toBe(40);
      expect(body.usage.completion_tokens_details.reasoning_tokens).toBe(5);
    }
    vendor.script({ tool_calls: [{ name: 'lookup', arguments: '{"q":"x"}' }], finish_reason: 'length' });
    const tools = (await (await post({ model: 'm', messages: hello })).json()) as Json;
    expect(tools.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: null, tool_calls: [{ type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] } });
    vendor.reset();
    expect(vendor.requests).toHaveLength(0);
    const plain = (await (await post({ model: 'm', messages: hello })).json()) as Json;
    expect(plain.choices[0].message.content).toMatch(/^mock answer to:/);
  });
});

describe('validation', () => {
  it('rejects the optimizer field with 400 "Unrecognized request argument supplied: optimizer"', async () => {
    const res = await post({ model: 'm', messages: hello, optimizer: { mode: 'cheap' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { message: 'Unrecognized request argument supplied: optimizer', type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('rejects a body that is not JSON with invalid_request_error', async () => {
    const res = await post('{not json');
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.type).toBe('invalid_request_error');
  });

  it.each([
    ['a missing model', { messages: hello }, null],
    ['a missing messages array', { model: 'm' }, 'messages'],
    ['an empty messages array', { model: 'm', messages: [] }, 'messages'],
    ['an unknown role', { model: 'm', messages: [{ role: 'robot', content: 'hi' }] }, 'messages[0].role'],
    ['a tool message without tool_call_id', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['stream_options without stream', { model: 'm', messages: hello, stream_options: { include_usage: true } }, 'stream_options'],
    [
      'a tool call left without a tool response',
      { model: 'm', messages: [...hello, { role: 'assistant', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'f', arguments: '{}' } }] }] },
      'messages.[1].role',
    ],
  ])('rejects %s with 400 naming the param', async (_label, body, param) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as Json).error;
    expect(error).toMatchObject({ type: 'invalid_request_error', param });
    expect(typeof error.message).toBe('string');
  });
});

describe('fault models', () => {
  it('slow waits about 1500 ms and then answers normally', async () => {
    const start = Date.now();
    const res = await post({ model: 'slow', messages: hello });
    expect(Date.now() - start).toBeGreaterThanOrEqual(1400);
    expect(((await res.json()) as Json).choices[0].message.content).toMatch(/^mock answer to:/);
  });

  it('flaky fails with 503 on every other request, starting with the first', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await post({ model: 'flaky', messages: hello });
      statuses.push(res.status);
      const body = (await res.json()) as Json;
      if (res.status === 503) expect(body.error.type).toBe('server_error');
    }
    expect(statuses).toEqual([503, 200, 503, 200]);
  });

  it('error-5xx answers 500 with the error envelope', async () => {
    const res = await post({ model: 'error-5xx', messages: hello, stream: true });
    expect(res.status).toBe(500);
    expect(((await res.json()) as Json).error).toMatchObject({ type: 'server_error', param: null, code: null });
  });

  it('rate-limited answers 429 with Retry-After: 1 and code rate_limit_exceeded', async () => {
    const res = await post({ model: 'rate-limited', messages: hello });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as Json).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
  });

  it('reset-mid-stream sends two chunks and then drops the connection', async () => {
    const res = await post({ model: 'reset-mid-stream', messages: hello, stream: true });
    expect(res.status).toBe(200);
    const received = await readUntilReset(res);
    expect(received.match(/^data: /gm)).toHaveLength(2);
    expect(received).not.toContain('[DONE]');
    expect(vendor.aborted).toBe(0);
  });

  it('reset-mid-stream drops a non-stream request without answering', async () => {
    await expect(post({ model: 'reset-mid-stream', messages: hello })).rejects.toThrow();
  });

  it('stall sends one chunk, never ends, and counts the client going away as aborted', async () => {
    const controller = new AbortController();
    const res = await post({ model: 'stall', messages: hello, stream: true }, { signal: controller.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/"role":"assistant"/);
    const next = reader.read();
    const raced = await Promise.race([next.then(() => 'data'), new Promise((r) => setTimeout(() => r('silence'), 300))]);
    expect(raced).toBe('silence');
    controller.abort();
    await next.catch(() => undefined);
    await until(() => vendor.aborted === 1);
  });

  it('stall never answers a non-stream request and counts the abort', async () => {
    const pending = post({ model: 'stall', messages: hello }, { signal: AbortSignal.timeout(300) });
    await expect(pending).rejects.toThrow();
    await until(() => vendor.aborted === 1);
  });

  it('error-in-stream sends two chunks, then an error event, and ends without [DONE]', async () => {
    const res = await post({ model: 'error-in-stream', messages: hello, stream: true });
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    expect(events).toHaveLength(3);
    expect(events[2]).toMatchObject({ error: { type: 'server_error', message: expect.any(String) } });
    expect(events).not.toContain('[DONE]');
  });

  it('treats names that only contain a magic word as ordinary models', async () => {
    const start = Date.now();
    const res = await post({ model: 'gpt-4o-slow', messages: hello });
    expect(res.status).toBe(200);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('closes promptly even while a stalled stream is open, without counting it as aborted', async () => {
    const mock = await startOpenAIMock();
    const res = await post({ model: 'stall', messages: hello, stream: true }, { url: mock.url });
    const reader = res.body!.getReader();
    await reader.read();
    await mock.close();
    await expect(reader.read()).rejects.toThrow();
    expect(mock.aborted).toBe(0);
  });
});
