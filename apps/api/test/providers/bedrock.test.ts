// The bedrock adapter's translations, checked on recorded vendor samples
// (src/providers/bedrock/fixtures): SigV4 against AWS's published test suite and the mock
// vendor's verifier, the
// event-stream framing against AWS's codec vectors, request, response, stream (fed
// whole, byte by byte and in odd splits), usage, finish reasons, tool calls, JSON
// mode and errors.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verifySignature } from '@optimizer/mock-providers';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { bedrockAdapter } from '../../src/providers/bedrock/adapter.ts';
import { parseCredentials, regionOf } from '../../src/providers/bedrock/api.ts';
import { mapBedrockError } from '../../src/providers/bedrock/errors.ts';
import { EventStreamDecoder, EventStreamError } from '../../src/providers/bedrock/eventstream.ts';
import { toolUseId } from '../../src/providers/bedrock/messages.ts';
import { toConverse } from '../../src/providers/bedrock/request.ts';
import { finishReason, parseConverseResponse } from '../../src/providers/bedrock/response.ts';
import { signRequest } from '../../src/providers/bedrock/sign.ts';
import { converseStreamDecoder } from '../../src/providers/bedrock/stream.ts';
import type { CallTarget, ChatBody, StreamEvent } from '../../src/providers/types.ts';

const fixtureUrl = (name: string) => new URL(`../../src/providers/bedrock/fixtures/${name}`, import.meta.url);
const json = (name: string) => JSON.parse(readFileSync(fixtureUrl(name), 'utf8')) as any;
const bytes = (name: string) => readFileSync(fixtureUrl(name));

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const AKID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const target: CallTarget = {
  provider: { name: 'bedrock', wire: 'bedrock', baseUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com', options: { region: 'us-west-2' } },
  model: MODEL,
  apiKey: `${AKID}:${SECRET}`,
};

const body = (extra: Record<string, unknown> = {}): ChatBody => ({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...extra });
const build = (extra: Record<string, unknown> = {}, model = MODEL) => {
  const r = toConverse(body(extra), model);
  if (!r.ok) throw new Error(r.refusal);
  return r.value as any;
};
const refusal = (extra: Record<string, unknown>, model = MODEL) => bedrockAdapter.unsupported(body(extra), { ...target, model });

const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const toolHistory = [
  { role: 'user', content: 'Weather?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
];

describe('sigv4', () => {
  const suite = json('sigv4-vectors.json');
  for (const v of suite.vectors) {
    it(`reproduces the AWS test suite's ${v.name} vector`, async () => {
      const credentials = { ...suite.credentials, ...(v.withSessionToken ? { sessionToken: suite.sessionToken } : {}) };
      const signed = await signRequest(
        { method: v.method, host: suite.host, path: v.path, query: v.query, headers: v.headers, body: v.body },
        { credentials, region: suite.region, service: suite.service, date: new Date(suite.date) },
      );
      expect(signed.authorization).toBe(v.authorization);
    });
  }

  /** The mock vendor's verdict (written apart from the signer) on a request signed by the adapter, as it goes on the wire. */
  const verdict = async (model: string, stream: boolean, region: string) => {
    const t = { ...target, model, provider: { ...target.provider, options: { region } } };
    const req = await bedrockAdapter.sign!(bedrockAdapter.buildRequest(body(), t, stream), t);
    const received = { method: 'POST', url: req.url.pathname, headers: { ...req.headers, host: req.url.host }, body: Buffer.from(req.body) };
    return { req, error: verifySignature(received, { accessKeyId: AKID, secretAccessKey: SECRET }, region, 'bedrock') };
  };

  it('signs a Bedrock model id with its colon encoded once on the wire and twice in the canonical URI', async () => {
    const { req, error } = await verdict(MODEL, false, 'us-west-2');
    expect(req.url.pathname).toBe('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
    expect(error).toBeNull();
    expect(req.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
  });

  it('keeps an inference-profile ARN one path segment: its slash travels as %2F and is signed as %252F', async () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0';
    const { req, error } = await verdict(arn, true, 'us-east-1');
    expect(req.url.pathname).toBe('/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream');
    expect(error).toBeNull();
  });

  it('is refused by the verifier once the body or the path changes after signing', async () => {
    const { req } = await verdict(MODEL, false, 'us-west-2');
    const check = (url: string, b: string) => verifySignature({ method: 'POST', url, headers: { ...req.headers, host: req.url.host }, body: Buffer.from(b) }, { accessKeyId: AKID, secretAccessKey: SECRET }, 'us-west-2', 'bedrock');
    expect(check(req.url.pathname, req.body)).toBeNull();
    expect(check(req.url.pathname, `${req.body} `)).not.toBeNull();
    expect(check(req.url.pathname.replace('converse', 'converse-stream'), req.body)).not.toBeNull();
  });
});

describe('event stream framing', () => {
  const suite = json('eventstream-vectors.json');
  for (const v of suite.vectors) {
    const encoded = Buffer.from(v.encoded, 'hex');
    if (v.expectation === 'success') {
      it(`decodes AWS's ${v.name} vector whole and byte by byte`, () => {
        for (const pieces of [[encoded], [...encoded].map((b) => Buffer.from([b]))]) {
          const d = new EventStreamDecoder();
          const messages = pieces.flatMap((p) => d.push(p));
          expect(messages).toHaveLength(1);
          expect(messages[0]!.headers).toEqual(v.headers);
          expect(messages[0]!.payload.toString('utf8')).toBe(v.payload);
          expect(d.pending).toBe(0);
        }
      });
    } else {
      it(`rejects AWS's ${v.name} vector`, () => {
        expect(() => new EventStreamDecoder().push(encoded)).toThrow(EventStreamError);
      });
    }
  }

  it('catches a corrupted length at the prelude, without waiting for the bytes it claims', () => {
    const corrupted = Buffer.from(suite.vectors.find((v: any) => v.name === 'corrupted_length').encoded, 'hex');
    const d = new EventStreamDecoder();
    expect(d.push(corrupted.subarray(0, 11))).toEqual([]);
    expect(() => d.push(corrupted.subarray(11, 12))).toThrow(/prelude checksum/);
  });

  for (const name of ['converse-stream-tools', 'converse-stream-reasoning', 'converse-stream-exception']) {
    it(`decodes the recorded ${name} stream into its events`, () => {
      const messages = new EventStreamDecoder().push(bytes(`${name}.bin`));
      expect(messages.map((m) => ({ headers: m.headers, payload: JSON.parse(m.payload.toString('utf8')) }))).toEqual(json(`${name}.events.json`));
    });
  }
});

describe('request', () => {
  it('translates the recorded OpenAI request into the recorded Converse request', () => {
    const openai = json('chat-request.json') as ChatBody;
    expect(bedrockAdapter.unsupported(openai, target)).toBeNull();
    const r = toConverse(openai, MODEL);
    expect(r.ok && r.value).toEqual(json('converse-request.json'));
  });

  it('builds a SigV4-signed POST to /model/{id}/converse or /converse-stream in the configured region', async () => {
    const now = Date.now();
    for (const stream of [false, true]) {
      const built = bedrockAdapter.buildRequest(body(), target, stream);
      expect(built.headers.authorization).toBeUndefined(); // signed in its own step, just before it is sent
      const req = await bedrockAdapter.sign!(built, target);
      expect(req.url.href).toBe(`https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/${stream ? 'converse-stream' : 'converse'}`);
      expect(req.headers).toMatchObject({ 'content-type': 'application/json', accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json' });
      expect(req.headers.host).toBeUndefined();
      expect(req.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(req.body).digest('hex'));
      const stamp = req.headers['x-amz-date']!;
      expect(Math.abs(Date.parse(stamp.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')) - now)).toBeLessThan(5_000);
      expect(req.headers.authorization).toMatch(
        new RegExp(`^AWS4-HMAC-SHA256 Credential=${AKID}/${stamp.slice(0, 8)}/us-west-2/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$`),
      );
      expect(JSON.parse(req.body)).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
    }
  });

  it('sends and signs the session token of ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN credentials', async () => {
    const t = { ...target, apiKey: `${AKID}:${SECRET}:FwoGZXIvYXdzEXAMPLETOKEN` };
    const req = await bedrockAdapter.sign!(bedrockAdapter.buildRequest(body(), t, false), t);
    expect(req.headers['x-amz-security-token']).toBe('FwoGZXIvYXdzEXAMPLETOKEN');
    expect(req.headers.authorization).toContain('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,');
  });

  it('answers 401 without calling Bedrock when the provider key is not AWS credentials', () => {
    for (const key of ['sk-wrong-key-for-vendor', `${AKID}:`, 'lowercase:secret', `${AKID}:a:b:c`]) {
      expect(parseCredentials(key)).toBeNull();
      let err: unknown;
      try {
        bedrockAdapter.buildRequest(body(), { ...target, apiKey: key }, false);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 401, code: 'upstream_auth' });
      expect((err as Error).message).toContain('ACCESS_KEY_ID:SECRET_ACCESS_KEY');
    }
  });

  it('takes the region from the provider options, else from the bedrock-runtime host, else us-east-1', () => {
    expect(regionOf(target.provider)).toBe('us-west-2');
    expect(regionOf({ ...target.provider, options: {}, baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com' })).toBe('eu-central-1');
    expect(regionOf({ ...target.provider, options: {}, baseUrl: 'http://127.0.0.1:4010' })).toBe('us-east-1');
  });

  it('maps the parameter table: limits, sampling, stop, metadata and service tier', () => {
    expect(build({ max_tokens: 77 }).inferenceConfig).toEqual({ maxTokens: 77 });
    expect(build({ max_completion_tokens: 66, max_tokens: 77 }).inferenceConfig).toEqual({ maxTokens: 66 });
    expect(build({ stop: 'END', temperature: 0, top_p: 1 }).inferenceConfig).toEqual({ stopSequences: ['END'], temperature: 0, topP: 1 });
    expect(build({ user: 'u1', safety_identifier: 's1', metadata: { a: 'b' } }).requestMetadata).toEqual({ user: 'u1', safety_identifier: 's1', a: 'b' });
    expect(build({ service_tier: 'flex' }).serviceTier).toEqual({ type: 'flex' });
    expect(build({ service_tier: 'auto' }).serviceTier).toBeUndefined();
    expect(build({ n: 1, logprobs: false, store: false, frequency_penalty: 0, stream: true, stream_options: { include_usage: true }, seed: null })).not.toHaveProperty('n');
  });

  it('refuses, by name, what Converse cannot do', () => {
    expect(refusal({ n: 2 })).toContain('n > 1');
    expect(refusal({ logprobs: true })).toBe('logprobs');
    expect(refusal({ top_logprobs: 3 })).toBe('top_logprobs');
    expect(refusal({ seed: 7 })).toBe('seed');
    expect(refusal({ temperature: 1.5 })).toContain('temperature 1.5');
    expect(refusal({ max_tokens: 0 })).toContain('max_tokens 0');
    expect(refusal({ presence_penalty: 0.5 })).toBe('presence_penalty');
    expect(refusal({ service_tier: 'scale' })).toContain('service_tier');
    expect(refusal({ store: true })).toContain('store');
    expect(refusal({ modalities: ['text', 'audio'] })).toBe('audio output');
    expect(refusal({ some_future_field: 1 })).toBe('the some_future_field parameter');
  });

  it('turns reasoning_effort into a Claude thinking budget, with room for the answer when no max_tokens is set', () => {
    expect(build({ reasoning_effort: 'medium' })).toMatchObject({ additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 4096 } }, inferenceConfig: { maxTokens: 8192 } });
    expect(build({ reasoning_effort: 'high', max_tokens: 20_000 })).toMatchObject({ additionalModelRequestFields: { thinking: { budget_tokens: 16_384 } }, inferenceConfig: { maxTokens: 20_000 } });
    expect(build({ reasoning_effort: 'low' }, `us.${MODEL}`).additionalModelRequestFields.thinking.budget_tokens).toBe(1024);
    expect(build({ reasoning_effort: 'none' }, 'amazon.nova-pro-v1:0').additionalModelRequestFields).toBeUndefined();
    expect(refusal({ reasoning_effort: 'low' }, 'amazon.nova-pro-v1:0')).toContain('only Anthropic Claude models');
    expect(refusal({ reasoning_effort: 'high', max_tokens: 1000 })).toContain('16384-token thinking budget');
    expect(refusal({ reasoning_effort: 'low', tools: [weather], tool_choice: 'required' })).toContain('forced tool_choice');
  });

  it('maps tools and every tool_choice, withholding the tools for none', () => {
    const spec = { toolSpec: { name: 'get_weather', inputSchema: { json: weather.function.parameters } } };
    expect(build({ tools: [weather] }).toolConfig).toEqual({ tools: [spec] });
    expect(build({ tools: [weather], tool_choice: 'auto' }).toolConfig.toolChoice).toEqual({ auto: {} });
    expect(build({ tools: [weather], tool_choice: 'required' }).toolConfig.toolChoice).toEqual({ any: {} });
    expect(build({ tools: [weather], tool_choice: { type: 'function', function: { name: 'get_weather' } } }).toolConfig.toolChoice).toEqual({ tool: { name: 'get_weather' } });
    expect(build({ tools: [weather], tool_choice: 'none' }).toolConfig).toBeUndefined();
    expect(build({ tools: [{ type: 'function', function: { name: 'ping' } }] }).toolConfig.tools[0].toolSpec.inputSchema.json).toEqual({ type: 'object', properties: {} });
    expect(refusal({ tools: [weather], tool_choice: 'none', messages: toolHistory })).toContain('tool_choice none');
    expect(refusal({ messages: toolHistory })).toContain('without tools');
    expect(refusal({ tools: [weather], parallel_tool_calls: false })).toBe('parallel_tool_calls false');
    expect(build({ tools: [{ type: 'function', function: { ...weather.function, strict: true } }] }).toolConfig.tools).toEqual([spec]);
    expect(refusal({ tools: [{ type: 'function', function: { name: 'json_response' } }] })).toContain('reserved');
    expect(refusal({ tools: [{ type: 'custom', custom: { name: 'x' } }] })).toBe('custom tools');
  });

  it('forces the json_response tool for response_format, and refuses it beside client tools', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const cfg = build({ response_format: { type: 'json_schema', json_schema: { name: 'person', description: 'A person', schema } } }).toolConfig;
    expect(cfg.toolChoice).toEqual({ tool: { name: 'json_response' } });
    expect(cfg.tools).toEqual([{ toolSpec: { name: 'json_response', description: expect.stringContaining('(person): A person'), inputSchema: { json: schema } } }]);
    expect(build({ response_format: { type: 'json_object' } }).toolConfig.tools[0].toolSpec.inputSchema.json).toEqual({ type: 'object' });
    expect(build({ response_format: { type: 'text' } }).toolConfig).toBeUndefined();
    expect(refusal({ response_format: { type: 'json_object' }, tools: [weather] })).toContain('together with tools');
    expect(refusal({ response_format: { type: 'json_object' }, reasoning_effort: 'low' })).toContain('reasoning_effort together');
  });

  it('translates messages: system and developer to system, merged turns, tool results in the user turn', () => {
    const r = build({
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: 'One' },
        { role: 'user', content: [{ type: 'text', text: 'Two' }] },
        { role: 'assistant', content: '' },
        { role: 'system', content: 'Late rule.' },
        ...toolHistory.slice(1),
        { role: 'user', content: 'Thanks' },
      ],
      tools: [weather],
    });
    expect(r.system).toEqual([{ text: 'Be brief.' }, { text: 'Late rule.' }]);
    expect(r.messages).toEqual([
      { role: 'user', content: [{ text: 'One' }, { text: 'Two' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Oslo' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }] } }, { text: 'Thanks' }] },
    ]);
  });

  it('gives a tool-call id outside [a-zA-Z0-9_-]{1,64} one stable replacement for its toolUse and toolResult', () => {
    expect(toolUseId('call_ok-1')).toBe('call_ok-1');
    expect(toolUseId('call:1')).toMatch(/^tooluse_[0-9a-f]{40}$/);
    expect(toolUseId('x'.repeat(65))).toBe(toolUseId('x'.repeat(65)));
    expect(toolUseId('call:1')).not.toBe(toolUseId('call:2'));
  });

  it('refuses image URLs, other media and message shapes Converse has no place for', () => {
    const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });
    expect(refusal(user([{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]))).toContain('image URLs');
    expect(refusal(user([{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }]))).toContain('image/bmp');
    expect(refusal(user([{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }]))).toBe('audio input');
    expect(refusal(user([{ type: 'file', file: { file_id: 'f' } }]))).toBe('file parts');
    expect(refusal({ messages: [{ role: 'user', content: 'hi', name: 'ada' }] })).toBe('the name field on messages');
    expect(refusal({ messages: [{ role: 'function', name: 'f', content: 'x' }] })).toBe('the name field on messages');
    expect(refusal({ messages: [{ role: 'function', content: 'x' }] })).toBe('function messages');
    // regression: LangChain's tool results carry the tool's name; that one is accepted
    expect(refusal({ tools: [weather], messages: [toolHistory[0], toolHistory[1], { ...toolHistory[2], name: 'get_weather' }] })).toBeNull();
    expect(refusal({ tools: [weather], messages: [toolHistory[0], { ...toolHistory[1], tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_weather', arguments: '[1]' } }] }] })).toContain(
      'not a JSON object',
    );
  });
});

describe('response', () => {
  const parse = (name: string) => {
    const r = parseConverseResponse(JSON.stringify(json(name)), target);
    return { ...r, body: JSON.parse(r.text) };
  };

  it('reads a text answer into a chat.completion with usage', () => {
    const { body, usage } = parse('converse-response-text.json');
    expect(body).toMatchObject({ object: 'chat.completion', model: MODEL, choices: [{ index: 0, message: { role: 'assistant', content: 'Oslo, sunny and 18°C at 14:05.', refusal: null }, finish_reason: 'stop', logprobs: null }] });
    expect(body.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(usage).toEqual({ promptTokens: 412, completionTokens: 14, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false });
    expect(body.usage).toEqual({ prompt_tokens: 412, completion_tokens: 14, total_tokens: 426, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
  });

  it('reads toolUse blocks as tool_calls and counts cache reads and writes inside prompt_tokens', () => {
    const { body, usage } = parse('converse-response-tools.json');
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.content).toBe("I'll look up both.");
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      { id: 'tooluse_3pQq0H8bS4GyJ6pKXw1u2A', type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(usage).toEqual({ promptTokens: 1377, completionTokens: 88, cachedTokens: 1024, cacheWriteTokens: 256, reasoningTokens: 0, estimated: false });
    expect(body.usage).toMatchObject({ prompt_tokens: 1377, total_tokens: 1465, prompt_tokens_details: { cached_tokens: 1024, cache_write_tokens: 256 } });
  });

  it('leaves reasoning out of the content while its tokens stay in completion_tokens', () => {
    const { body, usage } = parse('converse-response-reasoning.json');
    expect(body.choices[0].message.content).toBe('11');
    expect(usage).toMatchObject({ completionTokens: 131, reasoningTokens: 0 });
  });

  it('turns the forced json_response call back into JSON content with finish_reason stop', () => {
    const { body } = parse('converse-response-json.json');
    expect(body.choices[0].message.tool_calls).toBeUndefined();
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ name: 'Ada', born: 1815 });
    expect(body.choices[0].finish_reason).toBe('stop');
  });

  it('reports a guardrail intervention as content_filter', () => {
    expect(parse('converse-response-filtered.json').body.choices[0].finish_reason).toBe('content_filter');
  });

  it('maps every Converse stopReason onto a finish_reason', () => {
    const table = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', model_context_window_exceeded: 'length', tool_use: 'tool_calls', content_filtered: 'content_filter', guardrail_intervened: 'content_filter' };
    for (const [stop, finish] of Object.entries(table)) expect(finishReason(stop, false)).toBe(finish);
    expect(finishReason('tool_use', true)).toBe('stop');
    expect(finishReason('something_new', false)).toBe('stop');
  });

  it('throws on a body that is not a Converse response', () => {
    expect(() => parseConverseResponse('<html>', target)).toThrow();
    expect(() => parseConverseResponse('{"message":"x"}', target)).toThrow();
  });
});

describe('stream', () => {
  /** Feeds `data` in pieces of the given sizes (cycled), returning every event. */
  const decode = (data: Buffer, sizes: number[] | null, t: CallTarget = target): StreamEvent[] => {
    const d = converseStreamDecoder(t);
    const out: StreamEvent[] = [];
    if (!sizes) out.push(...d.push(data));
    else for (let at = 0, i = 0; at < data.length; at += sizes[i++ % sizes.length]!) out.push(...d.push(data.subarray(at, at + sizes[i % sizes.length]!)));
    return [...out, ...d.end()];
  };
  const chunks = (events: StreamEvent[]) => events.filter((e) => e.kind === 'chunk').map((e) => JSON.parse((e as { data: string }).data));
  /** Events with the minted id and timestamp taken out, to compare decodes. */
  const stable = (events: StreamEvent[]) => events.map((e) => ('data' in e && e.data ? { ...e, data: e.data.replace(/chatcmpl-[0-9a-f]+/g, 'ID').replace(/"created":\d+/g, '') } : e));

  const tools = bytes('converse-stream-tools.bin');

  it('decodes the recorded tool-call stream the same whole, byte by byte and in odd splits', () => {
    const whole = stable(decode(tools, null));
    expect(stable(decode(tools, [1]))).toEqual(whole);
    expect(stable(decode(tools, [3, 7, 1, 50, 13]))).toEqual(whole);
    expect(stable(decode(tools, [11, 2]))).toEqual(whole);
  });

  it('opens with the assistant role, streams text and two tool calls by index, then finish, usage and done', () => {
    const events = decode(tools, [5]);
    const cs = chunks(events);
    expect(cs[0]).toMatchObject({ object: 'chat.completion.chunk', model: MODEL, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    expect(new Set(cs.map((c) => c.id)).size).toBe(1);
    expect(cs.map((c) => c.choices[0].delta.content ?? '').join('')).toBe("I'll look up both.");
    const calls = new Map<number, { id?: string; name?: string; args: string }>();
    for (const c of cs) {
      for (const tc of c.choices[0].delta.tool_calls ?? []) {
        const cur = calls.get(tc.index) ?? { args: '' };
        if (tc.id) Object.assign(cur, { id: tc.id, name: tc.function.name, type: tc.type });
        cur.args += tc.function?.arguments ?? '';
        calls.set(tc.index, cur);
      }
    }
    expect([...calls.entries()]).toEqual([
      [0, { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', type: 'function', args: '{"city": "Oslo"}' }],
      [1, { id: 'tooluse_3pQq0H8bS4GyJ6pKXw1u2A', name: 'get_time', type: 'function', args: '{"city": "Oslo"}' }],
    ]);
    expect(cs.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    const usage = events.find((e) => e.kind === 'usage') as Extract<StreamEvent, { kind: 'usage' }>;
    expect(usage.usage).toEqual({ promptTokens: 1377, completionTokens: 88, cachedTokens: 1024, cacheWriteTokens: 256, reasoningTokens: 0, estimated: false });
    expect(JSON.parse(usage.data!)).toMatchObject({ id: cs[0].id, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 1377, completion_tokens: 88, total_tokens: 1465, prompt_tokens_details: { cached_tokens: 1024 } } });
    expect(events.at(-1)).toEqual({ kind: 'done' });
    expect(events.filter((e) => e.kind === 'done')).toHaveLength(1);
  });

  it('streams no reasoning text, only the answer', () => {
    const events = decode(bytes('converse-stream-reasoning.bin'), [9]);
    expect(chunks(events).map((c) => c.choices[0].delta.content ?? '').join('')).toBe('11');
    expect(chunks(events).at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(events.at(-1)).toEqual({ kind: 'done' });
  });

  it('turns an exception event into an OpenAI error object and never reports done', () => {
    const events = decode(bytes('converse-stream-exception.bin'), [4]);
    const error = events.find((e) => e.kind === 'error') as { data: string };
    expect(JSON.parse(error.data)).toEqual({ error: { message: 'bedrock: Model stream error: the model produced an invalid response.', type: 'upstream_error', code: 'modelStreamErrorException' } });
    expect(events.some((e) => e.kind === 'done')).toBe(false);
    expect(chunks(events).map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Once upon');
  });

  it('reports a corrupt frame as an error and decodes nothing after it', () => {
    const corrupt = Buffer.from(tools);
    corrupt[40] = corrupt[40]! ^ 0xff;
    const events = decode(corrupt, [64]);
    expect(events).toHaveLength(1);
    expect(JSON.parse((events[0] as { data: string }).data).error.code).toBe('event_stream_corrupt');
  });

  it('is not done when the stream is cut before messageStop, and is done when only the metadata is missing', () => {
    const events = json('converse-stream-tools.events.json') as unknown[];
    let offset = 0;
    const ends: number[] = [];
    for (let i = 0; i < events.length; i++) {
      offset += tools.readUInt32BE(offset);
      ends.push(offset);
    }
    expect(decode(tools.subarray(0, ends[5]! + 7), null).some((e) => e.kind === 'done')).toBe(false);
    expect(decode(tools.subarray(0, ends.at(-2)!), null).at(-1)).toEqual({ kind: 'done' });
  });
});

describe('errors', () => {
  for (const e of json('errors.json').errors) {
    it(`maps ${e.name} (${e.status}) to ${e.expect.status} ${e.expect.code}, keeping Bedrock's type, not its text`, () => {
      const err = mapBedrockError(e.status, e.headers, e.body, target);
      expect(err).toMatchObject({ status: e.expect.status, code: e.expect.code });
      const message = JSON.parse(e.body).message ?? JSON.parse(e.body).Message;
      expect(err.message.startsWith('bedrock: The model provider')).toBe(true);
      expect(err.message).not.toContain(message);
      expect(err.extra).toMatchObject({ vendor_status: e.status, vendor_type: e.headers['x-amzn-errortype'].split(':')[0] });
      if (e.expect.retryAfter) expect(err.headers['retry-after']).toBe(e.expect.retryAfter);
    });
  }

  it('still maps an error without x-amzn-ErrorType by its status', () => {
    expect(mapBedrockError(429, {}, 'not json', target)).toMatchObject({ status: 429, message: 'bedrock: The model provider is rate limiting this key.' });
  });
});
