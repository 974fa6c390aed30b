// The anthropic adapter's translations, checked on recorded vendor samples
// (src/providers/anthropic/fixtures): request, response, stream (fed whole, byte by
// byte and in odd splits), usage, finish reasons, tool calls, JSON mode and errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.ts';
import { toAnthropicRequest } from '../../src/providers/anthropic/request.ts';
import { parseAnthropicResponse } from '../../src/providers/anthropic/response.ts';
import { anthropicStreamDecoder } from '../../src/providers/anthropic/stream.ts';
import type { CallTarget, ChatBody, StreamEvent } from '../../src/providers/types.ts';

const fixture = (name: string) => readFileSync(new URL(`../../src/providers/anthropic/fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string) => JSON.parse(fixture(name)) as any;

const target: CallTarget = {
  provider: { name: 'anthropic', wire: 'anthropic', baseUrl: 'https://api.anthropic.com/v1' },
  model: 'claude-sonnet-4-5',
  apiKey: 'sk-ant-test',
};
const NOW = 1_760_000_000_000;

const body = (extra: Record<string, unknown> = {}, model = 'claude-sonnet-4-5'): ChatBody => ({ model, messages: [{ role: 'user', content: 'Hi' }], ...extra });
const build = (extra: Record<string, unknown> = {}, model = 'claude-sonnet-4-5') => toAnthropicRequest(body(extra, model), model, false) as any;
const refusal = (extra: Record<string, unknown>, model = 'claude-sonnet-4-5') => anthropicAdapter.unsupported(body(extra, model), { ...target, model });

const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

describe('request', () => {
  it('translates the recorded OpenAI request into the recorded Anthropic request', () => {
    const openai = json('chat-request.openai.json') as ChatBody;
    expect(anthropicAdapter.unsupported(openai, target)).toBeNull();
    expect(toAnthropicRequest(openai, 'claude-sonnet-4-5', true)).toEqual(json('chat-request.anthropic.json'));
  });

  it('builds POST {baseUrl}/messages with x-api-key and anthropic-version', () => {
    const req = anthropicAdapter.buildRequest(body(), target, true);
    expect(req.url.href).toBe('https://api.anthropic.com/v1/messages');
    expect(req.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json', accept: 'text/event-stream' });
    expect(req.headers.authorization).toBeUndefined();
    expect(JSON.parse(req.body)).toMatchObject({ model: 'claude-sonnet-4-5', stream: true });
    expect(JSON.parse(anthropicAdapter.buildRequest(body(), target, false).body).stream).toBeUndefined();
  });

  it('sends the model family output limit as max_tokens when the client sets none, and the client limit when it does', () => {
    expect(build({}, 'claude-sonnet-4-5').max_tokens).toBe(64_000);
    expect(build({}, 'claude-opus-4-1-20250805').max_tokens).toBe(32_000);
    expect(build({}, 'claude-opus-5-5').max_tokens).toBe(128_000);
    expect(build({}, 'claude-3-5-haiku-20241022').max_tokens).toBe(8_192);
    expect(build({}, 'claude-next-unknown').max_tokens).toBe(8_192);
    expect(build({ max_tokens: 77 }).max_tokens).toBe(77);
    expect(build({ max_completion_tokens: 66, max_tokens: 77 }).max_tokens).toBe(66);
  });

  it('maps reasoning_effort to a thinking budget and raises a max_tokens that leaves no room above it', () => {
    expect(build({ reasoning_effort: 'low' }).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(build({ reasoning_effort: 'medium', max_tokens: 20_000 })).toMatchObject({ thinking: { budget_tokens: 4096 }, max_tokens: 20_000 });
    expect(build({ reasoning_effort: 'high', max_completion_tokens: 500 })).toMatchObject({ thinking: { budget_tokens: 16_384 }, max_tokens: 16_884 });
    expect(build({ reasoning_effort: 'none' }).thinking).toBeUndefined();
  });

  it('clamps temperature into Anthropic 0..1 and turns stop into stop_sequences', () => {
    expect(build({ temperature: 2 }).temperature).toBe(1);
    expect(build({ temperature: 0.3 }).temperature).toBe(0.3);
    expect(build({ stop: 'END' }).stop_sequences).toEqual(['END']);
    expect(build({ stop: null, temperature: null, n: 1, logprobs: false }).stop_sequences).toBeUndefined();
  });

  it('maps tool_choice auto, none, required and a named function, and parallel_tool_calls false', () => {
    const tools = [weather];
    expect(build({ tools, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(build({ tools, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(build({ tools, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(build({ tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(build({ tools, parallel_tool_calls: false }).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(build({ tools }).tool_choice).toBeUndefined();
    expect(build({ tools }).tools).toEqual([{ name: 'get_weather', input_schema: weather.function.parameters }]);
  });

  it('implements json_schema as a forced json_output tool carrying the schema', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const req = build({ response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } } });
    expect(req.tools).toEqual([{ name: 'json_output', description: expect.any(String), input_schema: schema }]);
    expect(req.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
  });

  it('implements json_object as a forced json_output tool with an open object schema, and lets client tools compete with it', () => {
    expect(build({ response_format: { type: 'json_object' } })).toMatchObject({ tools: [{ name: 'json_output', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'json_output' } });
    const mixed = build({ tools: [weather], response_format: { type: 'json_object' } });
    expect(mixed.tools.map((t: any) => t.name)).toEqual(['get_weather', 'json_output']);
    expect(mixed.tool_choice).toEqual({ type: 'any' });
    expect(build({ response_format: { type: 'text' } }).tools).toBeUndefined();
  });

  it('merges consecutive same-role turns, puts tool results first in a user turn and trims a prefilled answer', () => {
    const req = toAnthropicRequest(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'One' },
          { role: 'user', content: [{ type: 'text', text: 'Two' }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }] },
          { role: 'user', content: 'late' },
          { role: 'tool', tool_call_id: 'c1', content: '' },
          { role: 'assistant', content: 'Sure: ' },
        ],
      },
      'm',
      false,
    );
    expect(req.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1' }, { type: 'text', text: 'late' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Sure:' }] },
    ]);
    expect(req.system).toBeUndefined();
  });

  it('sends a single system message as a string and a PDF file part as a document', () => {
    const req = toAnthropicRequest(
      {
        model: 'm',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }] },
        ],
      },
      'm',
      false,
    );
    expect(req.system).toBe('Be brief.');
    expect(req.messages[0]!.content).toEqual([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' }]);
  });

  it.each([
    [{ n: 2 }, 'n > 1'],
    [{ seed: 7 }, 'seed'],
    [{ logprobs: true }, 'logprobs'],
    [{ top_logprobs: 2 }, 'top_logprobs'],
    [{ frequency_penalty: 0.5 }, 'frequency_penalty'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ modalities: ['text', 'audio'] }, 'output modalities'],
    [{ audio: { voice: 'alloy', format: 'wav' } }, 'audio output'],
    [{ service_tier: 'flex' }, 'service_tier'],
    [{ some_new_field: 1 }, 'some_new_field'],
    [{ temperature: 0.2, top_p: 0.9 }, 'temperature together with top_p'],
    [{ reasoning_effort: 'high', tools: [weather], tool_choice: 'required' }, 'reasoning_effort while forcing a tool'],
    [{ reasoning_effort: 'low', response_format: { type: 'json_object' } }, 'reasoning_effort while forcing a tool'],
    [{ reasoning_effort: 'low', temperature: 0.2 }, 'temperature other than 1'],
    [{ reasoning_effort: 'extreme' }, 'reasoning_effort "extreme"'],
    [{ tools: [weather], tool_choice: 'required', response_format: { type: 'json_object' } }, 'tool_choice "required" together with response_format'],
    [{ tools: [{ type: 'function', function: { name: 'json_output' } }] }, 'a tool named json_output'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'array' } } } }, 'root is not an object'],
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] }, 'audio input'],
    [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }] }, 'image/bmp'],
    [{ messages: [{ role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Hi' }] }, 'starts with an assistant message'],
    [{ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] }] }, 'not JSON'],
  ])('refuses %j with a phrase naming %s', (extra, phrase) => {
    expect(refusal(extra)).toContain(phrase);
  });

  it('refuses reasoning_effort on a model without extended thinking and allows temperature with top_p on older models', () => {
    expect(refusal({ reasoning_effort: 'low' }, 'claude-3-5-haiku-20241022')).toContain('no extended thinking');
    expect(refusal({ temperature: 0.2, top_p: 0.9 }, 'claude-sonnet-4-20250514')).toBeNull();
  });
});

describe('response', () => {
  it('turns text into content and sums uncached, cache-read and cache-write input into prompt_tokens', () => {
    const parsed = parseAnthropicResponse(fixture('message-text.json'), NOW);
    const c = JSON.parse(parsed.text);
    expect(c).toMatchObject({ id: 'msg_01XFDUDYJgAACzvnptvVoYEL', object: 'chat.completion', created: NOW / 1000, model: 'claude-sonnet-4-5-20250929' });
    expect(c.choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'Hello! It is sunny in Oslo today, 18 °C.', refusal: null }, logprobs: null, finish_reason: 'stop' }]);
    expect(parsed.usage).toEqual({ promptTokens: 3093, completionTokens: 17, cachedTokens: 2048, cacheWriteTokens: 1024, reasoningTokens: 0, estimated: false });
    expect(c.usage).toEqual({ prompt_tokens: 3093, completion_tokens: 17, total_tokens: 3110, prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 0 } });
  });

  it('turns tool_use blocks into tool_calls, leaves thinking out of the content and reports thinking tokens as reasoning', () => {
    const parsed = parseAnthropicResponse(fixture('message-tool-use.json'), NOW);
    const choice = JSON.parse(parsed.text).choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe("I'll look up both.");
    expect(choice.message.tool_calls).toEqual([
      { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' } },
      { id: 'toolu_01B7Yz3kq2m8n4p6r9s1t0', type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(parsed.usage).toMatchObject({ promptTokens: 472, completionTokens: 161, reasoningTokens: 48 });
  });

  it('returns the json_output tool input as JSON content with finish_reason stop', () => {
    const choice = JSON.parse(parseAnthropicResponse(fixture('message-json-output.json')).text).choices[0];
    expect(JSON.parse(choice.message.content)).toEqual({ name: 'Ada Lovelace', born: 1815 });
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.finish_reason).toBe('stop');
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
    ['model_context_window_exceeded', 'length'],
    [null, 'stop'],
  ])('maps stop_reason %s to finish_reason %s', (stopReason, finish) => {
    const msg = { ...json('message-text.json'), stop_reason: stopReason };
    expect(JSON.parse(parseAnthropicResponse(JSON.stringify(msg)).text).choices[0].finish_reason).toBe(finish);
  });

  it('throws on a body that is not an Anthropic message', () => {
    expect(() => parseAnthropicResponse('<html>bad gateway</html>')).toThrow();
  });
});

/** Feeds `text` to a fresh decoder in pieces of the given byte sizes (cycled). */
function decode(text: string, sizes: number[] | 'whole'): StreamEvent[] {
  const bytes = Buffer.from(text, 'utf8');
  const d = anthropicStreamDecoder('anthropic', NOW);
  const out: StreamEvent[] = [];
  if (sizes === 'whole') out.push(...d.push(bytes));
  else for (let at = 0, i = 0; at < bytes.length; at += sizes[i++ % sizes.length]!) out.push(...d.push(bytes.subarray(at, at + sizes[i % sizes.length]!)));
  out.push(...d.end());
  return out;
}

const chunks = (events: StreamEvent[]) => events.filter((e) => e.kind === 'chunk').map((e) => JSON.parse((e as { data: string }).data));
const content = (events: StreamEvent[]) => chunks(events).map((c) => c.choices[0]?.delta?.content ?? '').join('');

describe('stream', () => {
  it.each(['stream-text.sse', 'stream-tool-use.sse', 'stream-json-output.sse', 'stream-error.sse'])('decodes %s the same whole, byte by byte and in odd splits', (name) => {
    const whole = decode(fixture(name), 'whole');
    expect(decode(fixture(name), [1])).toEqual(whole);
    expect(decode(fixture(name), [3, 7, 2, 13])).toEqual(whole);
    expect(decode(fixture(name).replace(/\n/g, '\r\n'), [5, 1, 11])).toEqual(whole);
  });

  it('streams a role chunk, the text, a finish chunk, usage with cached tokens, then done', () => {
    const events = decode(fixture('stream-text.sse'), [1]);
    const c = chunks(events);
    expect(c[0]).toEqual({ id: 'msg_01HCn8bEqHQyH5j8zSLWq1bV', object: 'chat.completion.chunk', created: NOW / 1000, model: 'claude-sonnet-4-5-20250929', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
    expect(content(events)).toBe('Héllo from Oslo — 18 °C and sunny 🌞.');
    expect(c.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    const usage = events.find((e) => e.kind === 'usage') as Extract<StreamEvent, { kind: 'usage' }>;
    expect(usage.usage).toEqual({ promptTokens: 4121, completionTokens: 15, cachedTokens: 4096, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false });
    expect(JSON.parse(usage.data!)).toMatchObject({ id: 'msg_01HCn8bEqHQyH5j8zSLWq1bV', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 4121, completion_tokens: 15, total_tokens: 4136, prompt_tokens_details: { cached_tokens: 4096 } } });
    expect(events.at(-1)).toEqual({ kind: 'done' });
    expect(events.map((e) => e.kind).slice(-2)).toEqual(['usage', 'done']);
  });

  it('numbers tool calls 0 and 1 (not content block indexes), opens each with id and name, and leaves thinking out', () => {
    const events = decode(fixture('stream-tool-use.sse'), [4, 9]);
    expect(content(events)).toBe('Okay, let me check.');
    const deltas = chunks(events).flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(deltas.filter((d: any) => d.id)).toEqual([
      { index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: 'toolu_01Bq5mDgsm8TmGk7vN2nFzZr', type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    for (const index of [0, 1]) {
      const args = deltas.filter((d: any) => d.index === index).map((d: any) => d.function.arguments).join('');
      expect(JSON.parse(args)).toEqual({ city: 'Oslo' });
    }
    expect(JSON.stringify(chunks(events))).not.toContain('call both tools');
    expect(chunks(events).at(-1).choices[0].finish_reason).toBe('tool_calls');
    const usage = events.find((e) => e.kind === 'usage') as Extract<StreamEvent, { kind: 'usage' }>;
    expect(usage.usage).toEqual({ promptTokens: 600, completionTokens: 89, cachedTokens: 0, cacheWriteTokens: 128, reasoningTokens: 31, estimated: false });
  });

  it('streams the json_output tool input as content and finishes with stop', () => {
    const events = decode(fixture('stream-json-output.sse'), [2]);
    expect(JSON.parse(content(events))).toEqual({ name: 'Ada', born: 1815 });
    expect(chunks(events).some((c) => c.choices[0]?.delta?.tool_calls)).toBe(false);
    expect(chunks(events).at(-1).choices[0].finish_reason).toBe('stop');
  });

  it('turns an error event into an OpenAI error object and never reports done', () => {
    const events = decode(fixture('stream-error.sse'), [6]);
    expect(content(events)).toBe('Once upon');
    const err = events.find((e) => e.kind === 'error') as Extract<StreamEvent, { kind: 'error' }>;
    expect(JSON.parse(err.data)).toEqual({ error: { message: 'anthropic: Overloaded', type: 'overloaded_error', code: 'overloaded_error', param: null } });
    expect(events.some((e) => e.kind === 'done' || e.kind === 'usage')).toBe(false);
  });

  it('reports no done when the stream is cut before message_stop', () => {
    const text = fixture('stream-text.sse');
    const events = decode(text.slice(0, text.indexOf('event: message_stop')), 'whole');
    expect(events.some((e) => e.kind === 'done')).toBe(false);
  });
});

describe('errors', () => {
  const map = (status: number, name: string, headers: Record<string, string> = {}) => anthropicAdapter.mapError(status, headers, fixture(name), target);

  it('keeps the vendor type, not its text, and maps the status classes', () => {
    const bad = map(400, 'error-invalid-request.json');
    expect(bad).toMatchObject({ status: 400, code: 'upstream_bad_request' });
    expect(bad.message).toBe('anthropic: The model provider refused the request.');
    expect(JSON.stringify(bad.toBody())).not.toContain('tool_use_id');
    expect(bad.extra).toMatchObject({ vendor_status: 400, vendor_type: 'invalid_request_error' });
    expect(map(401, 'error-authentication.json')).toMatchObject({ status: 401, code: 'upstream_auth', message: 'anthropic: The model provider refused the provider key.' });
    expect(map(529, 'error-overloaded.json')).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(map(500, 'error-overloaded.json').status).toBe(502);
  });

  it('keeps Retry-After on a 429', () => {
    const e = map(429, 'error-rate-limit.json', { 'retry-after': '17' });
    expect(e).toMatchObject({ status: 429, code: 'upstream_rate_limited', headers: { 'retry-after': '17' } });
    expect(e.message).toBe('anthropic: The model provider is rate limiting this key.');
  });

  it('answers with the status alone when the body is not Anthropic JSON', () => {
    expect(anthropicAdapter.mapError(502, {}, '<html>Bad Gateway</html>', target).message).toBe('anthropic: The model provider failed.');
  });
});
