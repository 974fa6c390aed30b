// The OpenAI-compatible family on recorded vendor samples
// (src/providers/openai-compatible/fixtures/<vendor>): each vendor's request mapping,
// what it cannot do (named), its URL and auth, its answers and streams (fed whole, byte
// by byte and in odd splits) back in OpenAI's shape, its usage variants and its errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../src/providers/adapters.ts';
import { openaiAdapter } from '../../src/providers/openai/adapter.ts';
import { openaiCompatibleAdapter, openAIWireAdapterFor } from '../../src/providers/openai-compatible/adapter.ts';
import { mistralToolCallId } from '../../src/providers/openai-compatible/messages.ts';
import { vendors } from '../../src/providers/openai-compatible/vendors.ts';
import type { CallTarget, ChatBody, StreamEvent } from '../../src/providers/types.ts';

const fixture = (vendor: string, name: string): string => readFileSync(new URL(`../../src/providers/openai-compatible/fixtures/${vendor}/${name}`, import.meta.url), 'utf8');
const json = (vendor: string, name: string): any => JSON.parse(fixture(vendor, name));

const BASE: Record<string, string> = {
  mistral: 'https://api.mistral.ai/v1',
  groq: 'https://api.groq.com/openai/v1',
  deepseek: 'https://api.deepseek.com/v1',
  xai: 'https://api.x.ai/v1',
  together: 'https://api.together.xyz/v1',
  fireworks: 'https://api.fireworks.ai/inference/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  vllm: 'http://10.0.0.5:8000/v1',
  'azure-openai': 'https://contoso.openai.azure.com/openai',
};

function target(vendor: string, model = 'some-model', extra: Partial<CallTarget> = {}, options?: Record<string, string>): CallTarget {
  return { provider: { name: vendor, wire: 'openai', baseUrl: BASE[vendor] ?? 'https://example.test/v1', ...(options ? { options } : {}) }, model, apiKey: 'sk-vendor-key', ...extra };
}

const body = (extra: Record<string, unknown> = {}): ChatBody => ({ model: 'some-model', messages: [{ role: 'user', content: 'Hi' }], ...extra });
const refusal = (vendor: string, extra: Record<string, unknown>, model = 'some-model') => openaiCompatibleAdapter.unsupported(body({ ...extra, model }), target(vendor, model));
const sent = (vendor: string, b: ChatBody, t: CallTarget = target(vendor, b.model)): any => JSON.parse(openaiCompatibleAdapter.buildRequest(b, t, b.stream === true).body);

/** Decodes a recorded stream fed whole, byte by byte, and in odd splits; all three must agree. */
function decode(vendor: string, name: string): StreamEvent[] {
  const bytes = Buffer.from(fixture(vendor, name), 'utf8');
  const run = (sizes: (i: number) => number): StreamEvent[] => {
    const d = openaiCompatibleAdapter.streamDecoder(target(vendor));
    const out: StreamEvent[] = [];
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const n = Math.max(1, sizes(i));
      out.push(...d.push(bytes.subarray(at, at + n)));
      at += n;
    }
    return [...out, ...d.end()];
  };
  const whole = run(() => bytes.length);
  expect(run(() => 1), 'byte by byte').toEqual(whole);
  expect(run((i) => [7, 1, 13, 2, 64, 3][i % 6]!), 'odd splits').toEqual(whole);
  return whole;
}

const chunks = (events: StreamEvent[]) => events.filter((e) => e.kind === 'chunk').map((e) => JSON.parse((e as { data: string }).data));
const usageEvent = (events: StreamEvent[]) => events.find((e) => e.kind === 'usage') as Extract<StreamEvent, { kind: 'usage' }>;
const kinds = (events: StreamEvent[]) => events.map((e) => e.kind);
const text = (events: StreamEvent[]) => chunks(events).map((c) => c.choices[0]?.delta?.content ?? '').join('');

describe('the openai wire picks the adapter by provider', () => {
  it('serves OpenAI itself and unprofiled admin-registered endpoints with the plain adapter, and every profiled vendor with the family', () => {
    expect(openAIWireAdapterFor(target('openai'))).toBe(openaiAdapter);
    expect(openAIWireAdapterFor(target('my-local-gateway'))).toBe(openaiAdapter);
    for (const name of Object.keys(vendors)) expect(openAIWireAdapterFor(target(name))).toBe(openaiCompatibleAdapter);
  });

  it('leaves a plain OpenAI call as the client sent it, asking only for streamed usage', () => {
    const wire = adapterFor('openai');
    const b = body({ seed: 1, logprobs: true, user: 'u', stream: true });
    const req = wire.buildRequest(b, target('openai', 'gpt-4o-mini', {}), true);
    expect(req.url.href).toBe('https://example.test/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-vendor-key');
    expect(JSON.parse(req.body)).toEqual({ ...b, stream_options: { include_usage: true } });
    expect(wire.unsupported(b, target('openai'))).toBeNull();
  });
});

describe('mistral', () => {
  it('maps the recorded OpenAI request into the recorded Mistral request', () => {
    const openai = json('mistral', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('mistral', openai.model))).toBeNull();
    expect(sent('mistral', openai)).toEqual(json('mistral', 'request-out.json'));
  });

  it('renames max_completion_tokens to max_tokens and seed to random_seed, forces tools with "any", and drops stream_options', () => {
    const out = sent('mistral', body({ max_completion_tokens: 9, max_tokens: 99, seed: 3, tool_choice: 'required', tools: [{ type: 'function', function: { name: 'f' } }], stream: true, stream_options: { include_usage: true } }));
    expect(out).toMatchObject({ max_tokens: 9, random_seed: 3, tool_choice: 'any' });
    expect(out).not.toHaveProperty('seed');
    expect(out).not.toHaveProperty('max_completion_tokens');
    expect(out).not.toHaveProperty('stream_options');
  });

  it("passes prompt_cache_key on to Mistral's prompt cache and reads its hits as cached tokens", () => {
    expect(refusal('mistral', { prompt_cache_key: 'session-42' })).toBeNull();
    expect(sent('mistral', body({ prompt_cache_key: 'session-42' }))).toMatchObject({ prompt_cache_key: 'session-42' });
    const answer = JSON.stringify({ id: 'x', object: 'chat.completion', model: 'mistral-small-latest', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 200, completion_tokens: 5, total_tokens: 205, prompt_tokens_details: { cached_tokens: 128 } } });
    expect(openaiCompatibleAdapter.parseResponse(answer, target('mistral')).usage).toMatchObject({ promptTokens: 200, cachedTokens: 128 });
  });

  it('gives tool calls and their results the same nine-character id, and keeps Mistral-made ids', () => {
    expect(mistralToolCallId('D681PevKs')).toBe('D681PevKs');
    const id = mistralToolCallId('call_1');
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(mistralToolCallId('call_1')).toBe(id);
    expect(mistralToolCallId('call_2')).not.toBe(id);
  });

  it('names what Mistral cannot do: logprobs, logit_bias, participant names, audio, stored completions', () => {
    expect(refusal('mistral', { logprobs: true })).toBe('logprobs');
    expect(refusal('mistral', { logit_bias: { 1: 2 } })).toBe('logit_bias');
    expect(refusal('mistral', { reasoning_effort: 'low' })).toBe('reasoning_effort');
    expect(refusal('mistral', { messages: [{ role: 'user', content: 'Hi', name: 'ada' }] })).toBe('messages[].name (participant names)');
    expect(refusal('mistral', { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }] })).toBe('audio input');
    expect(refusal('mistral', { store: true })).toMatch(/^store/);
    expect(refusal('mistral', { store: false, user: 'u', n: 2, logprobs: null })).toBeNull();
  });

  it('reads a tool-call answer: type added, finish reason and usage in OpenAI terms', () => {
    const parsed = openaiCompatibleAdapter.parseResponse(fixture('mistral', 'response.json'), target('mistral'));
    const c = JSON.parse(parsed.text);
    expect(c.choices[0]).toMatchObject({ finish_reason: 'tool_calls', logprobs: null, message: { role: 'assistant', tool_calls: [{ id: 'D681PevKs', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }] } });
    expect(c.usage).toEqual({ prompt_tokens: 94, completion_tokens: 22, total_tokens: 116, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
    expect(parsed.usage).toMatchObject({ promptTokens: 94, completionTokens: 22, estimated: false });
  });

  it('joins text parts of a thinking answer into the content and reads model_length as length', () => {
    const c = JSON.parse(openaiCompatibleAdapter.parseResponse(fixture('mistral', 'response-thinking.json'), target('mistral')).text);
    expect(c.choices[0].message.content).toBe('Hello Ada!');
    expect(c.choices[0].finish_reason).toBe('length');
  });

  it('takes usage off the last content chunk and reports it once at [DONE], across UTF-8 splits', () => {
    const events = decode('mistral', 'stream.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'chunk', 'chunk', 'usage', 'done']);
    expect(text(events)).toBe('Det er sol i Tromsø — 20 °C.');
    expect(chunks(events).every((c) => c.usage === undefined && c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks(events).at(-1).choices[0].finish_reason).toBe('stop');
    const u = usageEvent(events);
    expect(u.usage).toMatchObject({ promptTokens: 21, completionTokens: 12 });
    expect(JSON.parse(u.data!)).toMatchObject({ id: '5b8e1a9c0d3f4e2a9b7c6d5e4f3a2b1c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 21, completion_tokens: 12, total_tokens: 33 } });
  });

  it('numbers parallel tool calls 0 and 1 though Mistral sends both at index 0', () => {
    const calls = chunks(decode('mistral', 'stream-tools.sse')).flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'a1B2c3D4e', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } },
      { index: 1, id: 'f5G6h7I8j', type: 'function', function: { name: 'get_time', arguments: '{"city": "Oslo"}' } },
    ]);
  });

  it("reads Mistral's validation 422 and its gateway's 401", () => {
    const e422 = openaiCompatibleAdapter.mapError(422, {}, fixture('mistral', 'error-422.json'), target('mistral'));
    expect(e422).toMatchObject({ status: 400, message: 'mistral: The model provider refused the request.' });
    const e401 = openaiCompatibleAdapter.mapError(401, {}, fixture('mistral', 'error-401.json'), target('mistral'));
    expect(e401).toMatchObject({ status: 401, message: 'mistral: The model provider refused the provider key.' });
  });
});

describe('groq', () => {
  it('maps the recorded OpenAI request into the recorded Groq request', () => {
    const openai = json('groq', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('groq', openai.model))).toBeNull();
    expect(sent('groq', openai)).toEqual(json('groq', 'request-out.json'));
  });

  it('names what Groq cannot do: n above 1, logprobs, top_logprobs, logit_bias, participant names', () => {
    expect(refusal('groq', { n: 2 })).toBe('n above 1');
    expect(refusal('groq', { logprobs: true })).toBe('logprobs');
    expect(refusal('groq', { top_logprobs: 2 })).toBe('top_logprobs');
    expect(refusal('groq', { logit_bias: {} })).toBe('logit_bias');
    expect(refusal('groq', { messages: [{ role: 'user', content: 'x', name: 'n' }] })).toMatch(/^messages\[\]\.name/);
    expect(refusal('groq', { n: 1, logprobs: false, seed: 1, reasoning_effort: 'low' })).toBeNull();
  });

  it('reads usage from x_groq on the last chunk when no usage chunk comes', () => {
    const events = decode('groq', 'stream.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'chunk', 'chunk', 'usage', 'done']);
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 18, completionTokens: 3 });
    expect(chunks(events).some((c) => 'x_groq' in c)).toBe(false);
  });

  it('reports usage once when both x_groq and the include_usage chunk carry it', () => {
    const events = decode('groq', 'stream-include-usage.sse');
    expect(events.filter((e) => e.kind === 'usage')).toHaveLength(1);
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 11, completionTokens: 3 });
  });

  it('answers in OpenAI usage without Groq timings or x_groq', () => {
    const c = JSON.parse(openaiCompatibleAdapter.parseResponse(fixture('groq', 'response.json'), target('groq')).text);
    expect(c.usage).toEqual({ prompt_tokens: 18, completion_tokens: 11, total_tokens: 29, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
    expect(c.x_groq).toBeUndefined();
  });

  it('keeps Retry-After on a Groq 429 and reads its 400 naming the field', () => {
    const e429 = openaiCompatibleAdapter.mapError(429, { 'retry-after': '3' }, fixture('groq', 'error-429.json'), target('groq'));
    expect(e429).toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
    expect(e429.message).toBe('groq: The model provider is rate limiting this key.');
    const e400 = openaiCompatibleAdapter.mapError(400, {}, fixture('groq', 'error-400.json'), target('groq'));
    expect(e400.message).toBe('groq: The model provider refused the request.');
    expect(JSON.stringify(e400.toBody())).not.toContain('logit_bias is unsupported');
  });
});

describe('deepseek', () => {
  it('maps the recorded OpenAI request into the recorded DeepSeek request', () => {
    const openai = json('deepseek', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('deepseek', openai.model))).toBeNull();
    expect(sent('deepseek', openai)).toEqual(json('deepseek', 'request-out.json'));
  });

  it('names what DeepSeek cannot do: images, JSON schemas, more than one choice, fields it would silently ignore', () => {
    const image = { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }] };
    expect(refusal('deepseek', image, 'deepseek-chat')).toBe('image input');
    expect(refusal('deepseek', { response_format: { type: 'json_schema', json_schema: { name: 'p', schema: {} } } })).toMatch(/json_schema/);
    expect(refusal('deepseek', { n: 3 })).toBe('n above 1');
    expect(refusal('deepseek', { seed: 1 })).toBe('seed');
    expect(refusal('deepseek', { parallel_tool_calls: false })).toBe('parallel_tool_calls: false');
    expect(refusal('deepseek', { logprobs: true }, 'deepseek-reasoner')).toBe('logprobs on deepseek-reasoner');
    expect(refusal('deepseek', { logprobs: true, top_logprobs: 2 }, 'deepseek-chat')).toBeNull();
  });

  it('reads cache hits from prompt_cache_hit_tokens as cached tokens', () => {
    const parsed = openaiCompatibleAdapter.parseResponse(fixture('deepseek', 'response.json'), target('deepseek'));
    expect(parsed.usage).toEqual({ promptTokens: 1200, completionTokens: 10, cachedTokens: 1152, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false });
    expect(JSON.parse(parsed.text).usage.prompt_tokens_details).toEqual({ cached_tokens: 1152 });
  });

  it('reads a reasoner answer with hit/miss only, reasoning tokens, and insufficient_system_resource as length', () => {
    const parsed = openaiCompatibleAdapter.parseResponse(fixture('deepseek', 'response-reasoner.json'), target('deepseek'));
    expect(parsed.usage).toMatchObject({ promptTokens: 640, completionTokens: 220, cachedTokens: 512, reasoningTokens: 190 });
    expect(JSON.parse(parsed.text).choices[0].finish_reason).toBe('length');
  });

  it('streams past keep-alive comments and reports the usage chunk with cache hits', () => {
    const events = decode('deepseek', 'stream.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'chunk', 'usage', 'done']);
    expect(text(events)).toBe('{"primes": [2, 3]}');
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 75, completionTokens: 9, cachedTokens: 64 });
  });

  it('reads its 401 and maps a 402 (no balance) to a 400', () => {
    expect(openaiCompatibleAdapter.mapError(401, {}, fixture('deepseek', 'error-401.json'), target('deepseek'))).toMatchObject({ status: 401, message: 'deepseek: The model provider refused the provider key.' });
    // DeepSeek echoes the key's tail: none of its text travels on
    expect(JSON.stringify(openaiCompatibleAdapter.mapError(401, {}, fixture('deepseek', 'error-401.json'), target('deepseek')).toBody())).not.toContain('abcd');
    expect(openaiCompatibleAdapter.mapError(402, {}, fixture('deepseek', 'error-402.json'), target('deepseek'))).toMatchObject({ status: 400, message: 'deepseek: The model provider refused the request.', extra: { vendor_status: 402 } });
  });
});

describe('xai', () => {
  it('counts reasoning tokens into completion tokens, since xAI reports them beside completion_tokens', () => {
    const parsed = openaiCompatibleAdapter.parseResponse(fixture('xai', 'response.json'), target('xai'));
    expect(parsed.usage).toMatchObject({ promptTokens: 32, completionTokens: 103, cachedTokens: 6, reasoningTokens: 93 });
    expect(JSON.parse(parsed.text).usage).toMatchObject({ completion_tokens: 103, total_tokens: 135 });
    expect(usageEvent(decode('xai', 'stream.sse')).usage).toMatchObject({ completionTokens: 88, reasoningTokens: 87 });
  });

  it('names the sampling fields grok-4 refuses, and lets other models take them', () => {
    const openai = json('xai', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('xai', 'grok-4'))).toBe('presence_penalty on grok-4');
    expect(refusal('xai', { stop: ['x'] }, 'grok-4-0709')).toBe('stop on grok-4-0709');
    expect(refusal('xai', { presence_penalty: 0.5, stop: ['x'] }, 'grok-4-fast-non-reasoning')).toBeNull();
    expect(refusal('xai', { presence_penalty: 0.5, reasoning_effort: 'high' }, 'grok-3-mini')).toBeNull();
  });

  it('reads its {"code", "error"} error body', () => {
    expect(openaiCompatibleAdapter.mapError(400, {}, fixture('xai', 'error-400.json'), target('xai'))).toMatchObject({
      status: 400,
      message: 'xai: The model provider refused the request.',
    });
  });
});

describe('together', () => {
  it('maps the recorded OpenAI request (max_tokens, system for developer, logprobs false dropped)', () => {
    const openai = json('together', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('together', openai.model))).toBeNull();
    expect(sent('together', openai)).toEqual(json('together', 'request-out.json'));
    expect(refusal('together', { logprobs: true })).toBe('logprobs');
  });

  it('reads usage beside the last choices, eos as stop, and drops null tool_calls', () => {
    const events = decode('together', 'stream.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'chunk', 'usage', 'done']);
    expect(text(events)).toBe('Hello there');
    expect(chunks(events).at(-1).choices[0].finish_reason).toBe('stop');
    expect(chunks(events).every((c) => !('tool_calls' in c.choices[0].delta))).toBe(true);
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 40, completionTokens: 3 });
  });
});

describe('fireworks', () => {
  it('maps max_completion_tokens to max_tokens and keeps n', () => {
    const openai = json('fireworks', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('fireworks', openai.model))).toBeNull();
    expect(sent('fireworks', openai)).toEqual(json('fireworks', 'request-out.json'));
  });

  it('reads two choices and usage on the final chunk', () => {
    const c = JSON.parse(openaiCompatibleAdapter.parseResponse(fixture('fireworks', 'response.json'), target('fireworks')).text);
    expect(c.choices.map((x: any) => x.message.content)).toEqual(['Blue.', 'Teal.']);
    const events = decode('fireworks', 'stream.sse');
    expect(chunks(events)[0].choices[0].delta.role).toBe('assistant');
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 14, completionTokens: 3 });
    expect(openaiCompatibleAdapter.mapError(404, {}, fixture('fireworks', 'error-404.json'), target('fireworks')).status).toBe(404);
  });
});

describe('openrouter', () => {
  it('sends app attribution headers only when the provider is configured with them', () => {
    const plain = openaiCompatibleAdapter.buildRequest(body(), target('openrouter'), false);
    expect(plain.headers['HTTP-Referer']).toBeUndefined();
    const named = openaiCompatibleAdapter.buildRequest(body(), target('openrouter', 'openai/gpt-4o', {}, { httpReferer: 'https://gateway.example', appTitle: 'Optimizer' }), false);
    expect(named.headers).toMatchObject({ 'HTTP-Referer': 'https://gateway.example', 'X-Title': 'Optimizer', authorization: 'Bearer sk-vendor-key' });
  });

  it('skips its processing comments and reads the usage chunk', () => {
    const events = decode('openrouter', 'stream.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'usage', 'done']);
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 9, completionTokens: 2 });
  });

  it('turns a chunk carrying an error into an OpenAI error event, and reads its numeric error code', () => {
    const events = decode('openrouter', 'stream-error.sse');
    expect(kinds(events)).toEqual(['chunk', 'error']);
    expect(JSON.parse((events[1] as { data: string }).data)).toEqual({ error: { message: 'Provider disconnected unexpectedly', type: 'upstream_error', code: 'server_error' } });
    expect(openaiCompatibleAdapter.mapError(402, {}, fixture('openrouter', 'error-402.json'), target('openrouter'))).toMatchObject({ status: 400, message: 'openrouter: The model provider refused the request.', extra: { vendor_code: 402 } });
  });
});

describe('ollama', () => {
  it('maps the recorded request: max_tokens, and the defaults it has no field for dropped', () => {
    const openai = json('ollama', 'request-in.json') as ChatBody;
    expect(openaiCompatibleAdapter.unsupported(openai, target('ollama', openai.model))).toBeNull();
    expect(sent('ollama', openai)).toEqual(json('ollama', 'request-out.json'));
  });

  it('sends no Authorization header without a key, and a bearer key for Ollama cloud', () => {
    expect(openaiCompatibleAdapter.buildRequest(body(), target('ollama', 'llama3.2', { apiKey: '' }), false).headers.authorization).toBeUndefined();
    expect(openaiCompatibleAdapter.buildRequest(body(), target('ollama', 'llama3.2', { apiKey: 'olk' }), false).headers.authorization).toBe('Bearer olk');
  });

  it('names what Ollama would silently ignore: forced tools, image URLs, logprobs, n above 1', () => {
    expect(refusal('ollama', { tool_choice: 'required' })).toBe('tool_choice other than auto');
    expect(refusal('ollama', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/cat.png' } }] }] })).toMatch(/^image URLs/);
    expect(refusal('ollama', { logprobs: true })).toBe('logprobs');
    expect(refusal('ollama', { n: 2 })).toBe('n above 1');
  });

  it('reads its answers and errors in OpenAI shape', () => {
    const c = JSON.parse(openaiCompatibleAdapter.parseResponse(fixture('ollama', 'response.json'), target('ollama')).text);
    expect(c.choices[0].message.tool_calls).toEqual([{ id: 'call_d0g3k8ab', type: 'function', function: { name: 'describe', arguments: '{}' } }]);
    expect(usageEvent(decode('ollama', 'stream.sse')).usage).toMatchObject({ promptTokens: 26, completionTokens: 2 });
    expect(openaiCompatibleAdapter.mapError(404, {}, fixture('ollama', 'error-404.json'), target('ollama'))).toMatchObject({ status: 404, message: 'ollama: The model provider does not know that model or route.' });
  });
});

describe('vllm', () => {
  it('reads the {"object": "error"} body as a response and mid-stream', () => {
    expect(openaiCompatibleAdapter.mapError(400, {}, fixture('vllm', 'error-400.json'), target('vllm'))).toMatchObject({ status: 400, message: 'vllm: The model provider refused the request.' });
    const events = decode('vllm', 'stream-error.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'error']);
    expect(JSON.parse((events[2] as { data: string }).data).error).toMatchObject({ message: 'Engine loop has died', type: 'InternalServerError' });
  });

  it('sends a bearer key only when one is configured', () => {
    expect(openaiCompatibleAdapter.buildRequest(body(), target('vllm', 'm', { apiKey: '' }), false).headers.authorization).toBeUndefined();
  });
});

describe('azure-openai', () => {
  it('calls the deployment with the api-version query and the api-key header, and sends no model in the body', () => {
    const openai = json('azure-openai', 'request-in.json') as ChatBody;
    const req = openaiCompatibleAdapter.buildRequest(openai, target('azure-openai', 'gpt-4o-mini-prod', {}, { apiVersion: '2024-10-21' }), true);
    expect(req.url.href).toBe('https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini-prod/chat/completions?api-version=2024-10-21');
    expect(req.headers['api-key']).toBe('sk-vendor-key');
    expect(req.headers.authorization).toBeUndefined();
    expect(JSON.parse(req.body)).toEqual(json('azure-openai', 'request-out.json'));
    expect(JSON.parse(req.body)).not.toHaveProperty('model');
  });

  it('refuses a deployment name that is not an identifier and defaults the api-version', () => {
    for (const name of ['team a/gpt', '..', '.', '%2e%2e']) expect(() => openaiCompatibleAdapter.buildRequest(body(), target('azure-openai', name), false)).toThrow(/not a valid identifier/);
    const req = openaiCompatibleAdapter.buildRequest(body(), target('azure-openai', 'team-a.gpt_1'), false);
    expect(req.url.pathname).toBe('/openai/deployments/team-a.gpt_1/chat/completions');
    expect(req.url.searchParams.get('api-version')).toBe('2024-10-21');
  });

  it("drops the stream's prompt_filter_results opener and reads the usage chunk", () => {
    const events = decode('azure-openai', 'stream.sse');
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'chunk', 'usage', 'done']);
    expect(chunks(events)[0]).toMatchObject({ id: 'chatcmpl-CBqCOFjtLS6MnIjeak1IU4lz9eX6J', object: 'chat.completion.chunk', choices: [{ delta: { role: 'assistant' } }] });
    expect(text(events)).toBe('This is a test!');
    expect(usageEvent(events).usage).toMatchObject({ promptTokens: 21, completionTokens: 5 });
  });

  it('reads its {"error": {"code": "401"}} body and keeps Retry-After on a 429', () => {
    expect(openaiCompatibleAdapter.mapError(401, {}, fixture('azure-openai', 'error-401.json'), target('azure-openai'))).toMatchObject({ status: 401, message: 'azure-openai: The model provider refused the provider key.', extra: { vendor_code: '401' } });
    expect(openaiCompatibleAdapter.mapError(429, { 'retry-after': '6' }, fixture('azure-openai', 'error-429.json'), target('azure-openai'))).toMatchObject({ status: 429, headers: { 'retry-after': '6' } });
  });
});

describe('every vendor', () => {
  it('answers a body it cannot read with an error, and an error it cannot read with the status alone', () => {
    for (const name of Object.keys(vendors)) {
      expect(() => openaiCompatibleAdapter.parseResponse('<html>', target(name))).toThrow();
      expect(openaiCompatibleAdapter.mapError(503, {}, 'upstream connect error', target(name))).toMatchObject({ status: 502, message: `${name}: The model provider failed.` });
    }
  });

  it('names image input for a text-only vendor and passes images to the others', () => {
    const image = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }] };
    for (const name of Object.keys(vendors)) expect(refusal(name, image), name).toBe(name === 'deepseek' ? 'image input' : null);
  });

  it('ends a stream cut off before [DONE] without done, still reporting usage it saw', () => {
    const d = openaiCompatibleAdapter.streamDecoder(target('mistral'));
    const cut = fixture('mistral', 'stream.sse').replace('data: [DONE]\n\n', '');
    const events = [...d.push(Buffer.from(cut)), ...d.end()];
    expect(kinds(events)).toEqual(['chunk', 'chunk', 'chunk', 'chunk', 'usage']);
  });
});
