import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnthropicMock, type MockVendor } from '../src/index.ts';
import { readUntilReset } from './read-until-reset.ts';

type Json = Record<string, any>;

const KEY = 'sk-ant-mock-key';
let vendor: MockVendor;

beforeAll(async () => {
  vendor = await startAnthropicMock({ apiKey: KEY });
});
afterAll(async () => {
  await vendor.close();
});
beforeEach(() => vendor.reset());

const hello = [{ role: 'user', content: 'Hello there, how are you today?' }];
const headers = { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };

function post(body: unknown, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${vendor.url}/messages`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), ...init, headers: { ...headers, ...init.headers } });
}

/** Each SSE event as [event name, parsed data]. */
async function sse(res: Response): Promise<[string, Json][]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const [event, data] = block.split('\n');
      expect(event).toMatch(/^event: /);
      expect(data).toMatch(/^data: /);
      return [event!.slice(7), JSON.parse(data!.slice(6)) as Json];
    });
}

async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const weather = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const base = { model: 'claude-haiku-4-5', max_tokens: 256, messages: hello };

describe('messages', () => {
  it('answers with a Message echoing the last user text, with usage and a request-id', async () => {
    const res = await post({ ...base, system: 'Be brief.' });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/^req_mock/);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-haiku-4-5', stop_reason: 'end_turn', stop_sequence: null });
    expect(body.id).toMatch(/^msg_mock/);
    expect(body.content).toEqual([{ type: 'text', text: 'mock answer to: Hello there, how are you today?' }]);
    expect(body.usage).toMatchObject({ input_tokens: Math.ceil('Be brief.Hello there, how are you today?'.length / 4), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(body.usage.output_tokens).toBe(Math.ceil(body.content[0].text.length / 4));
    expect(vendor.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages' });
  });

  it('reports scripted cached and thinking tokens the Anthropic way, with a thinking block first', async () => {
    vendor.script({ content: 'Done.', usage: { prompt_tokens: 1000, completion_tokens: 120, cached_tokens: 800, reasoning_tokens: 90 } });
    const body = (await (await post(base)).json()) as Json;
    expect(body.usage).toMatchObject({ input_tokens: 200, cache_read_input_tokens: 800, output_tokens: 120, output_tokens_details: { thinking_tokens: 90 } });
    expect(body.content.map((b: Json) => b.type)).toEqual(['thinking', 'text']);
  });

  it('maps scripted finish reasons onto stop_reason and scripted tool calls onto tool_use blocks', async () => {
    vendor.script({ content: 'cut', finish_reason: 'length' });
    expect(((await (await post(base)).json()) as Json).stop_reason).toBe('max_tokens');
    vendor.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const body = (await (await post({ ...base, tools: [weather] })).json()) as Json;
    expect(body.stop_reason).toBe('tool_use');
    expect(body.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('calls a forced tool with schema-valid input, and turns scripted JSON content into the forced tool input', async () => {
    const forced = { ...base, tools: [weather, { ...weather, name: 'other' }], tool_choice: { type: 'tool', name: 'other' } };
    expect(((await (await post(forced)).json()) as Json).content[0]).toMatchObject({ type: 'tool_use', name: 'other', input: { city: 'mock' } });
    vendor.script({ content: '{"city":"Lima"}' });
    expect(((await (await post(forced)).json()) as Json).content).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'other', input: { city: 'Lima' } }]);
  });

  it('answers in text after tool results and stops at a stop sequence or max_tokens', async () => {
    const afterResult = [
      ...hello,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ];
    expect(((await (await post({ ...base, tools: [weather], messages: afterResult })).json()) as Json).content[0].type).toBe('text');
    const stopped = (await (await post({ ...base, stop_sequences: ['how'] })).json()) as Json;
    expect(stopped).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'how', content: [{ text: 'mock answer to: Hello there, ' }] });
    const cut = (await (await post({ ...base, max_tokens: 2 })).json()) as Json;
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', content: [{ text: 'mock ans' }] });
  });
});

describe('streaming', () => {
  it('streams message_start, a text block with a ping, message_delta and message_stop in Anthropic framing', async () => {
    const res = await post({ ...base, stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = await sse(res);
    for (const [name, data] of events) expect(data.type).toBe(name);
    const names = events.map(([n]) => n);
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(names.slice(-4)).toEqual(['content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const text = events.filter(([n]) => n === 'content_block_delta').map(([, d]) => d.delta.text).join('');
    expect(text).toBe('mock answer to: Hello there, how are you today?');
    expect(events[0]![1].message.usage.input_tokens).toBeGreaterThan(0);
    expect(events.at(-2)![1]).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: Math.ceil(text.length / 4) } });
  });

  it('streams tool_use blocks as input_json_delta fragments that join to the input', async () => {
    vendor.script({ content: null, tool_calls: [{ name: 'a', arguments: '{"city":"Oslo"}' }, { name: 'b', arguments: '{"city":"Lima"}' }] });
    const events = await sse(await post({ ...base, stream: true, tools: [{ ...weather, name: 'a' }, { ...weather, name: 'b' }] }));
    const starts = events.filter(([n]) => n === 'content_block_start').map(([, d]) => d);
    expect(starts.map((s) => [s.index, s.content_block.type, s.content_block.name])).toEqual([[0, 'tool_use', 'a'], [1, 'tool_use', 'b']]);
    for (const index of [0, 1]) {
      const json = events.filter(([n, d]) => n === 'content_block_delta' && d.index === index).map(([, d]) => d.delta.partial_json).join('');
      expect(JSON.parse(json)).toEqual({ city: index === 0 ? 'Oslo' : 'Lima' });
    }
  });
});

describe('auth and validation', () => {
  it('answers 401 authentication_error for a missing or wrong x-api-key, and ignores a bearer token', async () => {
    const missing = await post(base, { headers: { 'x-api-key': '', authorization: `Bearer ${KEY}` } });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' }, request_id: expect.any(String) });
    const wrong = await post(base, { headers: { 'x-api-key': 'sk-ant-wrong' } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as Json).error.message).toBe('invalid x-api-key');
  });

  it('requires the anthropic-version header', async () => {
    const res = await post(base, { headers: { 'anthropic-version': '' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toContain('anthropic-version');
  });

  it.each([
    ['invalid JSON', '{"model":', 'not valid JSON'],
    ['a missing max_tokens', { model: 'claude-haiku-4-5', messages: hello }, 'max_tokens: Field required'],
    ['max_tokens above the model limit', { ...base, max_tokens: 100_000 }, 'maximum allowed number of output tokens'],
    ['an unknown top-level field', { ...base, response_format: { type: 'json_object' } }, 'response_format: Extra inputs are not permitted'],
    ['a system role inside messages', { ...base, messages: [{ role: 'system', content: 'x' }, ...hello] }, 'Unexpected role "system"'],
    ['a first message that is not user', { ...base, messages: [{ role: 'assistant', content: 'Hi' }, ...hello] }, 'first message must use the "user" role'],
    ['non-alternating roles', { ...base, messages: [...hello, ...hello] }, 'roles must alternate'],
    ['an OpenAI-style message field', { ...base, messages: [{ role: 'user', content: 'x', name: 'ada' }] }, 'messages.0.name: Extra inputs are not permitted'],
    ['an OpenAI-style image part', { ...base, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }, "Input tag 'image_url'"],
    ['an empty text block', { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, 'text content blocks must be non-empty'],
    [
      'a tool_result that answers no tool_use in the previous assistant turn',
      { ...base, messages: [...hello, { role: 'assistant', content: 'ok' }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'x' }] }] },
      'unexpected `tool_use_id` found in `tool_result` blocks: call_1',
    ],
    [
      'a tool_use left without tool_result blocks right after',
      { ...base, messages: [...hello, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'f', input: {} }] }, { role: 'user', content: 'next' }] },
      '`tool_use` ids were found without `tool_result` blocks immediately after: toolu_9',
    ],
    ['an OpenAI-style tool', { ...base, tools: [{ type: 'function', function: { name: 'f' } }] }, "Input tag 'function'"],
    ['a forced tool that is not declared', { ...base, tools: [weather], tool_choice: { type: 'tool', name: 'nope' } }, "Tool 'nope' not found"],
    ['temperature above 1', { ...base, temperature: 1.5 }, 'temperature: Input should be less than or equal to 1'],
    ['temperature with top_p on a model that takes one', { ...base, temperature: 0.5, top_p: 0.9 }, 'cannot both be specified'],
    ['thinking while forcing a tool', { ...base, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [weather], tool_choice: { type: 'any' } }, 'Thinking may not be enabled when tool_choice forces tool use'],
    ['a thinking budget not below max_tokens', { ...base, max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 } }, '`max_tokens` must be greater than `thinking.budget_tokens`'],
    ['a prefilled answer ending in whitespace', { ...base, messages: [...hello, { role: 'assistant', content: 'Sure: ' }] }, 'trailing whitespace'],
  ])('rejects %s with 400 invalid_request_error', async (_label, body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as Json;
    expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(json.error.message).toContain(message);
  });

  it('answers 404 not_found_error on an unknown path', async () => {
    const res = await fetch(`${vendor.url}/complete`, { method: 'POST', headers, body: '{}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error.type).toBe('not_found_error');
  });
});

describe('fault models', () => {
  it('rate-limited answers 429 rate_limit_error with Retry-After and anthropic-ratelimit headers', async () => {
    const res = await post({ ...base, model: 'rate-limited' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(((await res.json()) as Json).error.type).toBe('rate_limit_error');
  });

  it('error-5xx answers 500 api_error, and flaky alternates 529 overloaded_error with success', async () => {
    const res = await post({ ...base, model: 'error-5xx', stream: true });
    expect(res.status).toBe(500);
    expect(((await res.json()) as Json).error).toEqual({ type: 'api_error', message: 'Internal server error' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await post({ ...base, model: 'flaky' });
      statuses.push(r.status);
      if (r.status === 529) expect(((await r.json()) as Json).error.type).toBe('overloaded_error');
      else await r.text();
    }
    expect(statuses).toEqual([529, 200, 529, 200]);
  });

  it('error-in-stream sends two events and then an error event with overloaded_error', async () => {
    const events = await sse(await post({ ...base, model: 'error-in-stream', stream: true }));
    expect(events.map(([n]) => n)).toEqual(['message_start', 'content_block_start', 'error']);
    expect(events[2]![1]).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('reset-mid-stream sends two events and then drops the connection', async () => {
    const res = await post({ ...base, model: 'reset-mid-stream', stream: true });
    const received = await readUntilReset(res);
    expect(received.match(/^event: /gm)).toHaveLength(2);
    expect(vendor.aborted).toBe(0);
  });

  it('stall sends one event, never ends, and counts the client going away as aborted', async () => {
    const controller = new AbortController();
    const res = await post({ ...base, model: 'stall', stream: true }, { signal: controller.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^event: message_start/);
    controller.abort();
    await until(() => vendor.aborted === 1);
  });

  it('slow waits about 1500 ms and then answers normally', async () => {
    const start = Date.now();
    const res = await post({ ...base, model: 'slow' });
    expect(Date.now() - start).toBeGreaterThanOrEqual(1400);
    expect(((await res.json()) as Json).content[0].text).toMatch(/^mock answer to:/);
  });
});
