// The OpenAI mock's vendor dialects: Mistral, Groq, DeepSeek and Azure OpenAI answer as
// those vendors do where they differ from OpenAI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '../src/index.ts';

type Json = Record<string, any>;

const KEY = 'sk-dialect-key';
const hello = [{ role: 'user', content: 'Hello there' }];

function post(vendor: MockVendor, path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }): Promise<Response> {
  return fetch(`${vendor.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function events(res: Response): Promise<Json[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('data: ') && b !== 'data: [DONE]')
    .map((b) => JSON.parse(b.slice(6)) as Json);
}

describe('mistral dialect', () => {
  let m: MockVendor;
  beforeAll(async () => {
    m = await startOpenAIMock({ apiKey: KEY, dialect: 'mistral' });
  });
  afterAll(() => m.close());

  it('rejects an OpenAI field Mistral lacks with 422 extra_forbidden', async () => {
    const res = await post(m, '/chat/completions', { model: 'mistral-small-latest', messages: hello, stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ object: 'error', type: 'invalid_request_error', message: { detail: [{ type: 'extra_forbidden', loc: ['body', 'stream_options'] }] } });
  });

  it('rejects the developer role, empty OpenAI-only assistant fields and tool-call ids not of nine letters or digits', async () => {
    const dev = await post(m, '/chat/completions', { model: 'm', messages: [{ role: 'developer', content: 'x' }, ...hello] });
    expect(dev.status).toBe(422);
    const refusal = await post(m, '/chat/completions', { model: 'm', messages: [...hello, { role: 'assistant', content: 'x', refusal: null }, ...hello] });
    expect(((await refusal.json()) as Json).message.detail[0].loc).toEqual(['body', 'messages', 1, 'assistant', 'refusal']);
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const ids = await post(m, '/chat/completions', { model: 'm', messages: [...hello, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: 'ok' }] });
    expect(ids.status).toBe(400);
    expect(((await ids.json()) as Json).message).toBe('Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.');
  });

  it('takes random_seed and "any", answers with nine-character tool-call ids and Mistral usage', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    const res = await post(m, '/chat/completions', { model: 'm', messages: hello, random_seed: 1, tools, tool_choice: 'any' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.choices[0].message.tool_calls[0].id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(Object.keys(body.usage).sort()).toEqual(['completion_tokens', 'prompt_tokens', 'total_tokens']);
  });

  it('streams usage on the chunk with finish_reason and no usage-only chunk', async () => {
    const chunks = await events(await post(m, '/chat/completions', { model: 'm', messages: hello, stream: true }));
    const last = chunks.at(-1)!;
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(chunks.filter((c) => c.choices.length === 0)).toHaveLength(0);
  });

  it('answers a wrong key as its gateway does and faults in its error shape', async () => {
    const denied = await post(m, '/chat/completions', { model: 'm', messages: hello }, { authorization: 'Bearer nope' });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ message: 'Unauthorized' });
    const fault = await post(m, '/chat/completions', { model: 'error-5xx', messages: hello });
    expect(fault.status).toBe(500);
    expect(await fault.json()).toMatchObject({ object: 'error', type: 'server_error' });
  });
});

describe('groq dialect', () => {
  let g: MockVendor;
  beforeAll(async () => {
    g = await startOpenAIMock({ apiKey: KEY, dialect: 'groq' });
  });
  afterAll(() => g.close());

  it('refuses logprobs, n above 1 and participant names by name', async () => {
    expect(((await (await post(g, '/chat/completions', { model: 'm', messages: hello, logprobs: true })).json()) as Json).error.message).toBe("property 'logprobs' is unsupported");
    expect((await post(g, '/chat/completions', { model: 'm', messages: hello, n: 2 })).status).toBe(400);
    expect((await post(g, '/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x', name: 'ada' }] })).status).toBe(400);
  });

  it('puts usage in x_groq on the last chunk, and also sends the usage chunk when asked', async () => {
    const plain = await events(await post(g, '/chat/completions', { model: 'm', messages: hello, stream: true }));
    expect(plain.at(-1)!.x_groq.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), queue_time: expect.any(Number) });
    const asked = await events(await post(g, '/chat/completions', { model: 'm', messages: hello, stream: true, stream_options: { include_usage: true } }));
    expect(asked.at(-1)!.choices).toEqual([]);
    expect(asked.at(-2)!.x_groq.usage).toBeDefined();
  });
});

describe('deepseek dialect', () => {
  let d: MockVendor;
  beforeAll(async () => {
    d = await startOpenAIMock({ apiKey: KEY, dialect: 'deepseek' });
  });
  afterAll(() => d.close());

  it('reports cache hits as prompt_cache_hit_tokens and misses as prompt_cache_miss_tokens', async () => {
    d.script({ content: 'ok', usage: { prompt_tokens: 100, completion_tokens: 5, cached_tokens: 64 } });
    const body = (await (await post(d, '/chat/completions', { model: 'deepseek-chat', messages: hello })).json()) as Json;
    expect(body.usage).toEqual({ prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 });
    const chunks = await events(await post(d, '/chat/completions', { model: 'deepseek-chat', messages: hello, stream: true, stream_options: { include_usage: true } }));
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_cache_hit_tokens: 64 });
    d.reset();
  });

  it('refuses images and JSON schemas', async () => {
    const image = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }];
    expect((await post(d, '/chat/completions', { model: 'm', messages: image })).status).toBe(422);
    const schema = { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'object' } } };
    expect((await post(d, '/chat/completions', { model: 'm', messages: hello, response_format: schema })).status).toBe(400);
  });
});

describe('azure dialect', () => {
  let a: MockVendor;
  const path = '/deployments/my-gpt/chat/completions?api-version=2024-10-21';
  beforeAll(async () => {
    a = await startOpenAIMock({ apiKey: KEY, dialect: 'azure' });
  });
  afterAll(() => a.close());

  it('serves the deployment path with the api-version query and the api-key header, the model from the path', async () => {
    expect(a.url).toMatch(/\/openai$/);
    const res = await post(a, path, { messages: hello }, { 'api-key': KEY });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.model).toBe('my-gpt');
    expect(body.prompt_filter_results).toHaveLength(1);
    expect(a.requests.at(-1)!.url).toBe(`/openai${path}`);
  });

  it('answers 404 without an api-version and 401 in its shape for a bearer or wrong key', async () => {
    expect((await post(a, '/deployments/my-gpt/chat/completions', { messages: hello }, { 'api-key': KEY })).status).toBe(404);
    const bearer = await post(a, path, { messages: hello });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ error: { code: '401', message: expect.stringMatching(/^Access denied/) } });
    expect((await post(a, path, { messages: hello }, { 'api-key': 'wrong' })).status).toBe(401);
  });

  it('opens a stream with a prompt_filter_results-only chunk, and faults by deployment name', async () => {
    const chunks = await events(await post(a, path, { messages: hello, stream: true }, { 'api-key': KEY }));
    expect(chunks[0]).toMatchObject({ id: '', object: '', choices: [], prompt_filter_results: expect.any(Array) });
    const fault = await post(a, '/deployments/error-5xx/chat/completions?api-version=2024-10-21', { messages: hello }, { 'api-key': KEY });
    expect(fault.status).toBe(500);
    expect(await fault.json()).toMatchObject({ error: { code: 'InternalServerError' } });
  });
});
