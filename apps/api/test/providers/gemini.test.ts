// The gemini adapter's transforms, on recorded vendor samples (src/providers/gemini/fixtures).
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { geminiAdapter } from '../../src/providers/gemini/adapter.ts';
import { toGeminiSchema } from '../../src/providers/gemini/schema.ts';
import type { CallTarget, ChatBody, StreamEvent } from '../../src/providers/types.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../src/providers/gemini/fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string): any => JSON.parse(fixture(name));

const target: CallTarget = {
  provider: { name: 'gemini', wire: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
  model: 'gemini-2.5-flash',
  apiKey: 'AIza-test-key',
};
const body = (extra: Record<string, unknown> = {}): ChatBody => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }], ...extra });
const sent = (b: ChatBody, t: CallTarget = target): any => JSON.parse(geminiAdapter.buildRequest(b, t, false).body);

/** Feeds bytes in pieces of `size` (1 = byte by byte) and collects every event, end() included. */
function decode(bytes: Buffer, size: number): StreamEvent[] {
  const d = geminiAdapter.streamDecoder(target);
  const out: StreamEvent[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(...d.push(bytes.subarray(at, at + size)));
  out.push(...d.end());
  return out;
}
const chunks = (events: StreamEvent[]): any[] => events.filter((e) => e.kind === 'chunk').map((e) => JSON.parse((e as { data: string }).data));

describe('gemini request', () => {
  it('translates a full OpenAI conversation into the recorded Gemini body', () => {
    const openai = json('request.openai.json') as ChatBody;
    expect(geminiAdapter.unsupported(openai, target)).toBeNull();
    expect(sent(openai)).toEqual(json('request.gemini.json'));
  });

  it('posts to :generateContent, or :streamGenerateContent?alt=sse, with the key in x-goog-api-key and not the URL', () => {
    const plain = geminiAdapter.buildRequest(body(), target, false);
    expect(plain.url.href).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(plain.headers['x-goog-api-key']).toBe('AIza-test-key');
    const streamed = geminiAdapter.buildRequest(body({ stream: true }), target, true);
    expect(streamed.url.href).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(streamed.url.href).not.toContain('AIza');
    expect(geminiAdapter.buildRequest(body(), { ...target, model: 'tunedModels/my-tune' }, false).url.pathname).toBe('/v1beta/tunedModels/my-tune:generateContent');
  });

  it('maps tool_choice onto functionCallingConfig modes', () => {
    const tools = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const config = (tool_choice: unknown) => sent(body({ tools, tool_choice })).toolConfig.functionCallingConfig;
    expect(config('none')).toEqual({ mode: 'NONE' });
    expect(config('required')).toEqual({ mode: 'ANY' });
    expect(config({ type: 'function', function: { name: 'get_time' } })).toEqual({ mode: 'ANY', allowedFunctionNames: ['get_time'] });
  });

  it('sends json_schema as responseSchema in the client order, and json_object as the JSON mime type only', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'], additionalProperties: false };
    const g = sent(body({ response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } } })).generationConfig;
    expect(g).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'], propertyOrdering: ['name', 'age'] },
    });
    expect(sent(body({ response_format: { type: 'json_object' } })).generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(sent(body({ response_format: { type: 'text' } })).generationConfig).toBeUndefined();
  });

  it('turns reasoning_effort into a thinking budget, none into 0', () => {
    expect(sent(body({ reasoning_effort: 'none' })).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });
    expect(sent(body({ reasoning_effort: 'medium' })).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 8192 });
    expect(sent(body({ reasoning_effort: 'high' })).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576 });
  });

  it('maps n, penalties and a stop list; max_completion_tokens wins over max_tokens', () => {
    const g = sent(body({ n: 2, presence_penalty: 0.5, frequency_penalty: -0.5, stop: ['END', '###'], max_completion_tokens: 64, max_tokens: 9 })).generationConfig;
    expect(g).toEqual({ candidateCount: 2, presencePenalty: 0.5, frequencyPenalty: -0.5, stopSequences: ['END', '###'], maxOutputTokens: 64 });
  });

  it('inlines local $refs, turns oneOf into anyOf and const into enum, and drops keys Gemini does not know', () => {
    const converted = toGeminiSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { City: { type: 'string', minLength: 1, format: 'uri' } },
      properties: { city: { $ref: '#/$defs/City' }, kind: { const: 'weather' }, when: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'integer', exclusiveMinimum: 0 }] } },
      patternProperties: { '^x-': {} },
    });
    expect(converted).toEqual({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 }, kind: { enum: ['weather'] }, when: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'integer' }] } },
    });
  });

  it("turns Pydantic's Optional (anyOf with a null branch) into nullable", () => {
    const optional = { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }], default: null, title: 'Nickname' };
    expect(toGeminiSchema(optional)).toEqual({ type: 'string', maxLength: 5, nullable: true, default: null, title: 'Nickname' });
    expect(toGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] })).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true });
  });

  it('does not loop on a recursive schema', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } }, left: { $ref: '#' } } };
    expect(() => toGeminiSchema(tree)).not.toThrow();
  });

  it('sends a result that is not a JSON object under "output", and a replayed call on Gemini 3 with the signature placeholder', () => {
    const messages = [
      { role: 'user', content: 'Time?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_time', arguments: '' } }] },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: '42' }] },
    ];
    const g3 = { ...target, model: 'gemini-3-pro-preview' };
    const contents = sent(body({ messages }), g3).contents;
    expect(contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }] });
    expect(contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: 42 } } }] });
    expect(sent(body({ messages })).contents[1].parts[0].thoughtSignature).toBeUndefined();
  });

  it.each([
    [{ logprobs: true }, 'logprobs'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ parallel_tool_calls: false }, 'parallel_tool_calls: false'],
    [{ audio: { voice: 'alloy', format: 'mp3' } }, 'audio output'],
    [{ temperature: 3 }, 'temperature 3'],
    [{ reasoning_effort: 'extreme' }, 'reasoning_effort "extreme"'],
    [{ brand_new_field: 1 }, '"brand_new_field"'],
    [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools of type "custom"'],
    [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }, 'image URLs that are not base64 data: URLs'],
    [{ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }, 'matches no earlier tool call'],
    [{ messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'role "function"'],
  ])('refuses what Gemini cannot do: %j', (extra, phrase) => {
    expect(geminiAdapter.unsupported(body(extra), target)).toContain(phrase);
  });

  it('accepts fields with no effect on the answer, and harmless values of refused ones', () => {
    expect(geminiAdapter.unsupported(body({ user: 'u1', metadata: { a: 'b' }, store: false, logprobs: false, parallel_tool_calls: true, service_tier: 'auto', temperature: null }), target)).toBeNull();
  });
});

describe('gemini response', () => {
  it('reads text (thoughts skipped), usage with cached and reasoning tokens, and the response id', () => {
    const parsed = geminiAdapter.parseResponse(fixture('response-text.json'), target);
    const r = JSON.parse(parsed.text);
    expect(r).toMatchObject({ id: 'Xq9-aMnSKfDanvgP8oWx-Ak', object: 'chat.completion', model: 'gemini-2.5-flash' });
    expect(r.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'No umbrella needed: it is sunny and 21 °C in Oslo. Enjoy the afternoon!', refusal: null }, finish_reason: 'stop', logprobs: null },
    ]);
    expect(parsed.usage).toEqual({ promptTokens: 1843, completionTokens: 147, cachedTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 128, estimated: false });
    expect(r.usage).toEqual({ prompt_tokens: 1843, completion_tokens: 147, total_tokens: 1990, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 128 } });
  });

  it('turns function calls into tool_calls with unique ids and JSON-text arguments, finishing with tool_calls', () => {
    const r = JSON.parse(geminiAdapter.parseResponse(fixture('response-tool-calls.json'), target).text);
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(r.choices[0].message.content).toBeNull();
    expect(r.choices[0].message.tool_calls).toEqual([
      { id: 'call_9Sh-aJ2eGczXnvgPzMfW4QQ_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' } },
      { id: 'call_9Sh-aJ2eGczXnvgPzMfW4QQ_1', type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
    ]);
  });

  it.each([
    ['response-max-tokens.json', 'length', 'Oslo is the capital'],
    ['response-safety.json', 'content_filter', ''],
    ['response-prompt-blocked.json', 'content_filter', null],
  ])('maps the finish of %s to %s', (name, finish, content) => {
    const r = JSON.parse(geminiAdapter.parseResponse(fixture(name), target).text);
    expect(r.choices[0].finish_reason).toBe(finish);
    expect(r.choices[0].message.content).toBe(content);
  });

  it('throws on a body that is not JSON, so the gateway answers 502', () => {
    expect(() => geminiAdapter.parseResponse('<html>oops</html>', target)).toThrow(SyntaxError);
  });
});

describe('gemini stream', () => {
  const text = Buffer.from(fixture('stream-text.sse'));
  // Gemini sends no creation time, so each decode stamps the clock's: hold the clock still
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00.500Z'));
  });
  afterEach(() => vi.useRealTimers());

  it.each([1, 3, 7, 64, text.length])('decodes the same events whatever the byte split (%i)', (size) => {
    expect(decode(text, size)).toEqual(decode(text, text.length));
  });

  it('opens with the assistant role, streams the text, finishes with stop, then usage and done', () => {
    const events = decode(text, 5);
    const c = chunks(events);
    expect(c[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(c.map((x) => x.choices[0].delta.content ?? '').join('')).toBe('No umbrella needed: it is sunny and 21 °C in Oslo. Enjoy the afternoon!');
    expect(c.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(c.every((x) => x.id === 'Xq9-aMnSKfDanvgP8oWx-Ak' && x.object === 'chat.completion.chunk')).toBe(true);
    const usage = events.find((e) => e.kind === 'usage') as Extract<StreamEvent, { kind: 'usage' }>;
    expect(usage.usage).toEqual({ promptTokens: 1843, completionTokens: 147, cachedTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 128, estimated: false });
    expect(JSON.parse(usage.data!)).toMatchObject({ choices: [], usage: { prompt_tokens: 1843, completion_tokens: 147, total_tokens: 1990, prompt_tokens_details: { cached_tokens: 1024 } } });
    expect(events.at(-1)).toEqual({ kind: 'done' });
  });

  it('emits each whole function call as one tool_call delta with id, name and arguments', () => {
    const c = chunks(decode(Buffer.from(fixture('stream-tool-calls.sse')), 11));
    const calls = c.flatMap((x) => x.choices[0].delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'call_9Sh-aJ2eGczXnvgPzMfW4QQ_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' } },
      { index: 1, id: 'call_9Sh-aJ2eGczXnvgPzMfW4QQ_1', type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(c.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('turns an error event into an OpenAI error and never reports done', () => {
    const events = decode(Buffer.from(fixture('stream-error.sse')), 2);
    const error = events.find((e) => e.kind === 'error') as { data: string };
    expect(JSON.parse(error.data)).toEqual({
      error: { message: expect.stringContaining('An internal error has occurred'), type: 'server_error', code: 'INTERNAL', param: null },
    });
    expect(events.some((e) => e.kind === 'done')).toBe(false);
  });

  it('does not report done for a stream cut before its finishReason', () => {
    const cut = fixture('stream-text.sse').split('\r\n\r\n').slice(0, 2).join('\r\n\r\n');
    const events = decode(Buffer.from(cut), 9);
    expect(events.some((e) => e.kind === 'done' || e.kind === 'usage')).toBe(false);
  });
});

describe('gemini errors', () => {
  const map = (name: string, status: number, headers: Record<string, string> = {}) => geminiAdapter.mapError(status, headers, fixture(name), target);

  it('answers 401 for a bad key, which Gemini reports as 400 INVALID_ARGUMENT with reason API_KEY_INVALID', () => {
    const e = map('error-api-key-invalid.json', 400);
    expect(e.status).toBe(401);
    expect(e.message).toBe('gemini: The model provider refused the provider key.');
    expect(e.extra).toMatchObject({ vendor_status: 400, vendor_type: 'INVALID_ARGUMENT', vendor_code: 'API_KEY_INVALID' });
  });

  it('answers 401 for a missing key (403 PERMISSION_DENIED)', () => {
    expect(map('error-missing-key.json', 403).status).toBe(401);
  });

  it('keeps 429 and takes Retry-After from RetryInfo, as Gemini sends no header', () => {
    const e = map('error-rate-limited.json', 429);
    expect(e.status).toBe(429);
    expect(e.headers['retry-after']).toBe('37');
    expect(map('error-rate-limited.json', 429, { 'retry-after': '5' }).headers['retry-after']).toBe('5');
  });

  it('answers 502 for 503 UNAVAILABLE, and 400 naming the field for an unknown field', () => {
    expect(map('error-overloaded.json', 503).status).toBe(502);
    const e = map('error-unknown-field.json', 400);
    expect(e.status).toBe(400);
    expect(e.param).toBe('tools[0].function_declarations[0].parameters');
  });

  it('still answers by status when the body is not Google JSON', () => {
    const e = geminiAdapter.mapError(502, {}, '<html>Bad Gateway</html>', target);
    expect(e.status).toBe(502);
    expect(e.message).toBe('gemini: The model provider failed.');
  });
});
