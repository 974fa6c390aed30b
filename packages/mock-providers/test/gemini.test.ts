import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiMock, type MockVendor } from '../src/index.ts';
import { readUntilReset } from './read-until-reset.ts';

type Json = Record<string, any>;

const KEY = 'AIza-mock-key';
let vendor: MockVendor;

beforeAll(async () => {
  vendor = await startGeminiMock({ apiKey: KEY });
});
afterAll(async () => {
  await vendor.close();
});
beforeEach(() => vendor.reset());

const hello = [{ role: 'user', parts: [{ text: 'Hello there, how are you today?' }] }];
const weather = { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } };
const time = { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

/** `key: null` sends no key header. */
function call(model: string, body: unknown, opts: { stream?: boolean; alt?: string | null; key?: string | null; signal?: AbortSignal } = {}): Promise<Response> {
  const method = opts.stream ? 'streamGenerateContent' : 'generateContent';
  const alt = opts.stream && opts.alt !== null ? `?alt=${opts.alt ?? 'sse'}` : '';
  const sent = opts.key === undefined ? KEY : opts.key;
  return fetch(`${vendor.url}/models/${model}:${method}${alt}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(typeof sent === 'string' ? { 'x-goog-api-key': sent } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

async function ok(model: string, body: unknown): Promise<Json> {
  const res = await call(model, body);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

async function rejected(body: unknown): Promise<Json['error']> {
  const res = await call('gemini-2.5-flash', body);
  expect(res.status).toBe(400);
  return ((await res.json()) as Json).error;
}

/** The JSON events of an SSE body framed as Gemini frames them (CRLF CRLF). */
async function sseEvents(res: Response): Promise<Json[]> {
  const text = await res.text();
  expect(text.endsWith('\r\n\r\n')).toBe(true);
  return text
    .split('\r\n\r\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as Json);
}

async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('generateContent', () => {
  it('echoes the last user text with usage, the model version and a response id', async () => {
    const body = await ok('gemini-2.5-flash', { systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: hello });
    expect(body.candidates).toEqual([{ content: { parts: [{ text: 'mock answer to: Hello there, how are you today?' }], role: 'model' }, finishReason: 'STOP', index: 0 }]);
    const prompt = Math.ceil('Be brief.Hello there, how are you today?'.length / 4);
    const answer = Math.ceil('mock answer to: Hello there, how are you today?'.length / 4);
    expect(body.usageMetadata).toEqual({ promptTokenCount: prompt, candidatesTokenCount: answer, totalTokenCount: prompt + answer, promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }] });
    expect(body.modelVersion).toBe('gemini-2.5-flash');
    expect(body.responseId).toEqual(expect.any(String));
  });

  it('records each request with its path and parsed body', async () => {
    await ok('gemini-2.5-pro', { contents: hello });
    expect(vendor.requests).toHaveLength(1);
    expect(vendor.requests[0]).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-2.5-pro:generateContent', body: { contents: hello } });
  });

  it('accepts the proto snake_case spelling of fields', async () => {
    const body = await ok('gemini-2.5-flash', { contents: hello, generation_config: { max_output_tokens: 10, response_mime_type: 'application/json' } });
    expect(JSON.parse(body.candidates[0].content.parts[0].text)).toEqual({ answer: 'mock answer to: Hello there, how are you today?' });
  });

  it('accepts a conversation that opens with a model text turn', async () => {
    await ok('gemini-2.5-flash', { contents: [{ role: 'model', parts: [{ text: 'Hi, I am your guide.' }] }, ...hello] });
  });

  it('reports thinking as thoughtsTokenCount, and thought parts only when asked to include them', async () => {
    const body = await ok('gemini-2.5-flash', { contents: hello, generationConfig: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } });
    expect(body.candidates[0].content.parts[0]).toMatchObject({ thought: true });
    expect(body.usageMetadata.thoughtsTokenCount).toBe(24);
    expect(body.usageMetadata.totalTokenCount).toBe(body.usageMetadata.promptTokenCount + body.usageMetadata.candidatesTokenCount + 24);
  });

  it('answers n candidates for candidateCount', async () => {
    const body = await ok('gemini-2.5-flash', { contents: hello, generationConfig: { candidateCount: 2 } });
    expect(body.candidates.map((c: Json) => c.index)).toEqual([0, 1]);
  });
});

describe('auth', () => {
  it('answers 403 PERMISSION_DENIED without a key', async () => {
    const res = await call('gemini-2.5-flash', { contents: hello }, { key: null });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining('unregistered callers') });
  });

  it('answers 400 INVALID_ARGUMENT with reason API_KEY_INVALID for a wrong key', async () => {
    const res = await call('gemini-2.5-flash', { contents: hello }, { key: 'AIza-wrong' });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as Json).error;
    expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' });
    expect(error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' });
  });

  it('takes the key from ?key= as well', async () => {
    const res = await fetch(`${vendor.url}/models/gemini-2.5-flash:generateContent?key=${KEY}`, { method: 'POST', body: JSON.stringify({ contents: hello }) });
    expect(res.status).toBe(200);
  });
});

describe('validation', () => {
  it('rejects unknown fields anywhere, naming each with its snake_case path', async () => {
    const error = await rejected({ contents: hello, optimizer: {}, generationConfig: { maxTokens: 5 }, tools: [{ functionDeclarations: [{ ...weather, parameters: { ...weather.parameters, additionalProperties: false } }] }] });
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message.split('\n')).toEqual([
      'Invalid JSON payload received. Unknown name "optimizer": Cannot find field.',
      'Invalid JSON payload received. Unknown name "maxTokens" at \'generation_config\': Cannot find field.',
      'Invalid JSON payload received. Unknown name "additionalProperties" at \'tools[0].function_declarations[0].parameters\': Cannot find field.',
    ]);
    expect(error.details[0]['@type']).toBe('type.googleapis.com/google.rpc.BadRequest');
  });

  it('rejects unknown keys inside nested schema properties', async () => {
    const parameters = { type: 'object', properties: { city: { type: 'string', $schema: 'x' } } };
    const error = await rejected({ contents: hello, tools: [{ functionDeclarations: [{ name: 'f', parameters }] }] });
    expect(error.message).toBe('Invalid JSON payload received. Unknown name "$schema" at \'tools[0].function_declarations[0].parameters.properties[0].value\': Cannot find field.');
  });

  it('rejects values of the wrong type and bytes that are not base64', async () => {
    const error = await rejected({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'not base64!' } }] }], generationConfig: { temperature: 'hot' } });
    expect(error.message.split('\n')).toEqual([
      'Invalid value at \'contents[0].parts[0].inline_data.data\' (TYPE_BYTES), Base64 decoding failed for "not base64!"',
      'Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "hot"',
    ]);
  });

  it('rejects a body that is not JSON', async () => {
    expect((await rejected('{"contents": [')).message).toContain('Invalid JSON payload received.');
  });

  it.each([
    ['missing contents', {}, '* GenerateContentRequest.contents: contents is not specified\n'],
    ['empty contents', { contents: [] }, '* GenerateContentRequest.contents: contents is not specified\n'],
    ['a role other than user or model', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'Please use a valid role: user, model.'],
    ['empty parts', { contents: [{ role: 'user', parts: [] }] }, '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n'],
    ['a part without data', { contents: [{ role: 'user', parts: [{ thought: true }] }] }, "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n"],
    [
      'a function call turn first',
      { contents: [{ role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} } }] }] },
      'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
    ],
    [
      'a function response without a preceding function call',
      { contents: [...hello, { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: '12:00' } } }] }] },
      'Please ensure that function response turn comes immediately after a function call turn.',
    ],
    [
      'fewer function responses than calls',
      {
        contents: [
          ...hello,
          { role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} } }, { functionCall: { name: 'get_weather', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: '12:00' } } }] },
        ],
      },
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    ],
    [
      'an OBJECT schema with no properties',
      { contents: hello, tools: [{ functionDeclarations: [{ name: 'list', parameters: { type: 'object', properties: {} } }] }] },
      '* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type\n',
    ],
    ['an invalid function name', { contents: hello, tools: [{ functionDeclarations: [{ name: 'get weather' }] }] }, 'Invalid function name'],
  ])('rejects %s with 400 INVALID_ARGUMENT', async (_name, body, message) => {
    const error = await rejected(body);
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(message);
  });
});

describe('deterministic replies', () => {
  it('calls the allowed function when the mode is ANY, with schema-valid args and a thought signature', async () => {
    const body = await ok('gemini-2.5-flash', {
      contents: hello,
      tools: [{ functionDeclarations: [weather, time] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } },
    });
    expect(body.candidates[0].content.parts).toEqual([{ functionCall: { name: 'get_time', args: { city: 'mock' } }, thoughtSignature: expect.any(String) }]);
    expect(body.candidates[0].finishReason).toBe('STOP');
  });

  it('answers in text after a function response, or when the mode is NONE', async () => {
    const contents = [
      ...hello,
      { role: 'model', parts: [{ functionCall: { name: 'get_time', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: '12:00' } } }] },
    ];
    const after = await ok('gemini-2.5-flash', { contents, tools: [{ functionDeclarations: [time] }] });
    expect(after.candidates[0].content.parts[0].text).toContain('mock answer to:');
    const none = await ok('gemini-2.5-flash', { contents: hello, tools: [{ functionDeclarations: [time] }], toolConfig: { functionCallingConfig: { mode: 'NONE' } } });
    expect(none.candidates[0].content.parts[0].text).toContain('mock answer to:');
  });

  it('fills a responseSchema with JSON', async () => {
    const responseSchema = { type: 'OBJECT', properties: { name: { type: 'STRING' }, age: { type: 'INTEGER' } }, required: ['name', 'age'] };
    const body = await ok('gemini-2.5-flash', { contents: hello, generationConfig: { responseMimeType: 'application/json', responseSchema } });
    expect(JSON.parse(body.candidates[0].content.parts[0].text)).toEqual({ name: 'mock', age: 0 });
  });

  it('replies with the scripted calls, usage (cached and thinking included) and finish reason until reset', async () => {
    vendor.script({ tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }], usage: { prompt_tokens: 100, completion_tokens: 30, cached_tokens: 60, reasoning_tokens: 20 } });
    const body = await ok('gemini-2.5-flash', { contents: hello });
    expect(body.candidates[0].content.parts[0].functionCall).toEqual({ name: 'get_weather', args: { city: 'Oslo' } });
    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 10, thoughtsTokenCount: 20, totalTokenCount: 130 });
    vendor.script({ content: 'cut sho', finish_reason: 'length' });
    expect((await ok('gemini-2.5-flash', { contents: hello })).candidates[0]).toMatchObject({ content: { parts: [{ text: 'cut sho' }] }, finishReason: 'MAX_TOKENS' });
    vendor.reset();
    expect((await ok('gemini-2.5-flash', { contents: hello })).candidates[0].content.parts[0].text).toContain('mock answer to:');
  });

  it('answers a content_filter script with a SAFETY candidate and no content', async () => {
    vendor.script({ content: null, finish_reason: 'content_filter' });
    const body = await ok('gemini-2.5-flash', { contents: hello });
    expect(body.candidates[0]).toEqual({ finishReason: 'SAFETY', index: 0 });
  });
});

describe('streaming', () => {
  it('streams word pieces as SSE events with running usage, finishing with STOP and the full usage', async () => {
    const res = await call('gemini-2.5-flash', { contents: hello }, { stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await sseEvents(res);
    const text = events.map((e) => e.candidates[0].content?.parts[0].text ?? '').join('');
    expect(text).toBe('mock answer to: Hello there, how are you today?');
    expect(events.slice(0, -1).every((e) => e.candidates[0].finishReason === undefined)).toBe(true);
    expect(events.at(-1)!.candidates[0].finishReason).toBe('STOP');
    const full = await ok('gemini-2.5-flash', { contents: hello });
    expect(events.at(-1)!.usageMetadata).toEqual(full.usageMetadata);
  });

  it('sends parallel function calls whole, in one event', async () => {
    vendor.script({ tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }, { name: 'get_time', arguments: '{"city":"Oslo"}' }] });
    const events = await sseEvents(await call('gemini-2.5-flash', { contents: hello }, { stream: true }));
    expect(events).toHaveLength(1);
    expect(events[0]!.candidates[0].content.parts.map((p: Json) => p.functionCall.name)).toEqual(['get_weather', 'get_time']);
    expect(events[0]!.candidates[0].finishReason).toBe('STOP');
  });

  it('streams a JSON array without alt=sse', async () => {
    const res = await call('gemini-2.5-flash', { contents: hello }, { stream: true, alt: null });
    expect(res.headers.get('content-type')).toContain('application/json');
    const events = JSON.parse(await res.text()) as Json[];
    expect(events.length).toBeGreaterThan(1);
    expect(events.at(-1)!.candidates[0].finishReason).toBe('STOP');
  });
});

describe('fault models', () => {
  it('rate-limited answers 429 RESOURCE_EXHAUSTED with a RetryInfo delay and no Retry-After header', async () => {
    const res = await call('rate-limited', { contents: hello });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const error = ((await res.json()) as Json).error;
    expect(error.status).toBe('RESOURCE_EXHAUSTED');
    expect(error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' });
  });

  it('error-5xx answers 500 INTERNAL', async () => {
    const res = await call('error-5xx', { contents: hello });
    expect(res.status).toBe(500);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 500, status: 'INTERNAL' });
  });

  it('flaky answers 503 UNAVAILABLE on every other request, starting with the first', async () => {
    const first = await call('flaky', { contents: hello });
    expect(first.status).toBe(503);
    expect(((await first.json()) as Json).error.status).toBe('UNAVAILABLE');
    expect((await call('flaky', { contents: hello })).status).toBe(200);
  });

  it('still validates before misbehaving', async () => {
    expect((await call('error-5xx', { contents: [] })).status).toBe(400);
  });

  it('error-in-stream sends two events, then an error event, and ends', async () => {
    const events = await sseEvents(await call('error-in-stream', { contents: hello }, { stream: true }));
    expect(events).toHaveLength(3);
    expect(events[2]).toEqual({ error: { code: 500, message: expect.any(String), status: 'INTERNAL' } });
  });

  it('reset-mid-stream sends two events and then drops the connection', async () => {
    const res = await call('reset-mid-stream', { contents: hello }, { stream: true });
    const received = await readUntilReset(res);
    expect(received.match(/^data: /gm)).toHaveLength(2);
    expect(vendor.aborted).toBe(0);
  });

  it('stall sends one event, never ends, and counts the client going away as aborted', async () => {
    const controller = new AbortController();
    const res = await call('stall', { contents: hello }, { stream: true, signal: controller.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^data: \{"candidates"/);
    const next = reader.read();
    const raced = await Promise.race([next.then(() => 'data'), new Promise((r) => setTimeout(() => r('silence'), 300))]);
    expect(raced).toBe('silence');
    controller.abort();
    await next.catch(() => undefined);
    await until(() => vendor.aborted === 1);
  });

  it('answers 404 NOT_FOUND for an unknown method', async () => {
    const res = await fetch(`${vendor.url}/models/gemini-2.5-flash:predict`, { method: 'POST', headers: { 'x-goog-api-key': KEY }, body: '{}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error.status).toBe('NOT_FOUND');
  });
});
