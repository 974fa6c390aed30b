// POST /v1/responses, OpenAI's Responses API, on the completion pipeline: the official
// `openai` SDK's `responses.create` (plain, streamed, tools, JSON schema) and the Vercel AI
// SDK's default provider (`createOpenAI(...)('auto')`, which speaks the Responses API) drive
// the gateway against the OpenAI mock and the Anthropic mock, and read the `optimizer` block
// from the response and from the stream's response.completed. The annotation arrives as
// the body's `optimizer` or as metadata.optimizer (a JSON string); what the gateway cannot
// honour is refused by name.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { Agent, request } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConformanceMock, ProviderConformance } from './conformance/descriptor.ts';
import { conformance as anthropic } from './conformance/providers/anthropic.ts';
import { conformance as openai } from './conformance/providers/openai.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { callRecords, ROUTING_CLEARED } from './support/vendor.ts';

const PLATFORM_KEY = 'sk-responses-platform-key';
const ANSWER = 'Oslo is bright and sunny today, with a light breeze off the fjord.';
const FINAL = 'It is sunny in Oslo, 21 degrees.';
const REPORT = { city: 'Oslo', celsius: 21, conditions: 'sunny' };
const REPORT_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] } },
  required: ['city', 'celsius', 'conditions'],
  additionalProperties: false,
};
const WEATHER_TOOL = { type: 'function' as const, name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true };

type Event = { type: string; sequence_number: number; [k: string]: any };

function expectOptimizerBlock(block: any): void {
  expect(block).toMatchObject({ cache_hit: expect.any(Boolean), baseline_cost: expect.any(Number), actual_cost: expect.any(Number), saving: expect.any(Number) });
}

describe.each([openai, anthropic].map((p) => [p.provider, p] as const))('POST /v1/responses to %s', (_name, p: ProviderConformance) => {
  let mock: ConformanceMock;
  let gw: TestGateway;
  let tenant: { api_key: string; account_id: string };
  let client: OpenAI;

  /** The annotation the call with this id was metered with. */
  async function annotationOf(callId: string): Promise<any> {
    const row = (await callRecords(gw, tenant.account_id)).find((r) => r.id === callId)!;
    const detail = typeof row.detail === 'string' ? JSON.parse(row.detail) : row.detail;
    return detail.annotation;
  }

  beforeAll(async () => {
    mock = await p.startMock(PLATFORM_KEY);
    gw = await startGateway({ env: p.env(mock.url, PLATFORM_KEY) });
    tenant = await signup(gw);
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: tenant.api_key, maxRetries: 0 });
    // `auto` routes on this vendor's models, its test model the baseline
    const routing = await fetch(`${gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(tenant.api_key), body: JSON.stringify({ ...ROUTING_CLEARED, allowed_providers: [p.provider], baseline_model: p.model }) });
    expect(routing.status).toBe(200);
  });
  afterAll(async () => {
    await gw?.close();
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  it('answers responses.create with a response object: output_text, usage, the optimizer block, the annotation from the body', async () => {
    mock.script({ content: ANSWER, finish_reason: 'stop', usage: { prompt_tokens: 30, completion_tokens: 14 } });
    const { data: r, response } = await client.responses
      .create({ model: p.model, input: 'Describe the weather in Oslo', instructions: 'Answer in one sentence.', max_output_tokens: 200, optimizer: { step: { id: 'describe' } } } as never)
      .withResponse();

    const callId = response.headers.get('x-optimizer-call-id')!;
    expect(r).toMatchObject({ id: `resp_${callId}`, object: 'response', status: 'completed', instructions: 'Answer in one sentence.', max_output_tokens: 200 });
    expect(r.output_text).toBe(ANSWER);
    expect(r.output).toEqual([{ id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: ANSWER, annotations: [], logprobs: [] }] }]);
    expect(r.usage).toMatchObject({ input_tokens: 30, output_tokens: 14, total_tokens: 44 });
    expectOptimizerBlock((r as any).optimizer);
    expect((r as any).optimizer.actual_cost).toBeGreaterThan(0);

    expect(mock.requests).toHaveLength(1);
    const sent = p.inspect(mock.requests[0]!);
    expect(sent.system).toBe('Answer in one sentence.');
    expect(sent.userTexts).toEqual(['Describe the weather in Oslo']);
    expect(sent.maxTokens).toBe(200);
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain('optimizer');
    expect(await annotationOf(callId)).toMatchObject({ step: { id: 'describe' } });
  });

  it('streams the typed events, the optimizer block on response.completed, the annotation from metadata.optimizer', async () => {
    mock.script({ content: ANSWER, finish_reason: 'stop', usage: { prompt_tokens: 20, completion_tokens: 14 } });
    const { data: stream, response } = await client.responses
      .create({ model: p.model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Stream the weather in Oslo' }] }], stream: true, metadata: { team: 'travel', optimizer: JSON.stringify({ step: { id: 'stream-weather' } }) } })
      .withResponse();
    const events: Event[] = [];
    for await (const ev of stream) events.push(ev as unknown as Event);

    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => e.delta).join('')).toBe(ANSWER);
    expect(events.find((e) => e.type === 'response.output_text.done')!.text).toBe(ANSWER);

    const callId = response.headers.get('x-optimizer-call-id')!;
    const completed = events.at(-1)!.response;
    expect(completed).toMatchObject({ id: `resp_${callId}`, object: 'response', status: 'completed', metadata: { team: 'travel' } });
    expect(completed.output[0].content[0].text).toBe(ANSWER);
    expect(completed.usage).toMatchObject({ input_tokens: 20, output_tokens: 14, total_tokens: 34 });
    expectOptimizerBlock(completed.optimizer);
    expect(p.inspect(mock.requests[0]!).userTexts).toEqual(['Stream the weather in Oslo']);
    expect(await annotationOf(callId)).toMatchObject({ step: { id: 'stream-weather' } });
  });

  it('returns a function_call item, takes the function_call_output back, and streams a call as arguments events', async () => {
    mock.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' });
    const first = await client.responses.create({ model: p.model, input: 'What is the weather in Oslo?', tools: [WEATHER_TOOL] });
    expect(first.output).toHaveLength(1);
    const call = first.output[0]!;
    expect(call).toMatchObject({ type: 'function_call', status: 'completed', name: 'get_weather', call_id: expect.stringMatching(/\S/) });
    expect(JSON.parse((call as any).arguments)).toEqual({ city: 'Oslo' });
    expect(p.inspect(mock.requests[0]!).toolNames).toEqual(['get_weather']);
    expectOptimizerBlock((first as any).optimizer);

    mock.script({ content: FINAL, finish_reason: 'stop' });
    const second = await client.responses.create({
      model: p.model,
      tools: [WEATHER_TOOL],
      input: [
        { role: 'user', content: 'What is the weather in Oslo?' },
        { type: 'function_call', call_id: (call as any).call_id, name: 'get_weather', arguments: (call as any).arguments },
        { type: 'function_call_output', call_id: (call as any).call_id, output: '{"celsius":21,"conditions":"sunny"}' },
      ],
    });
    expect(second.output_text).toBe(FINAL);
    expect(p.inspect(mock.requests[1]!).toolResults).toBe(1);

    mock.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Bergen"}' }], finish_reason: 'tool_calls' });
    const stream = await client.responses.create({ model: p.model, input: 'And in Bergen?', tools: [WEATHER_TOOL], stream: true });
    const events: Event[] = [];
    for await (const ev of stream) events.push(ev as unknown as Event);
    const added = events.find((e) => e.type === 'response.output_item.added')!;
    expect(added.item).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'in_progress' });
    expect(events.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta).join('')).toBe('{"city":"Bergen"}');
    expect(events.find((e) => e.type === 'response.function_call_arguments.done')).toMatchObject({ name: 'get_weather', arguments: '{"city":"Bergen"}' });
    const done = events.at(-1)!;
    expect(done.type).toBe('response.completed');
    expect(done.response.output[0]).toMatchObject({ type: 'function_call', status: 'completed', call_id: added.item.call_id, arguments: '{"city":"Bergen"}' });
    expectOptimizerBlock(done.response.optimizer);
  });

  it('ends a stream the vendor breaks mid-way with an error event and response.failed, on which the SDK throws', async () => {
    const r = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: authed(tenant.api_key), body: JSON.stringify({ model: p.faultModel('error-in-stream'), input: 'Break, please', stream: true }) });
    expect(r.status).toBe(200);
    const events = (await r.text())
      .split('\n\n')
      .filter((e) => e.trim() !== '')
      .map((e) => ({ name: /^event: (.+)$/m.exec(e)![1], data: JSON.parse(/^data: (.+)$/m.exec(e)![1]!) as Event }));
    expect(events.every((e) => e.name === e.data.type)).toBe(true);
    expect(events[0]!.name).toBe('response.created');
    expect(events.slice(-2).map((e) => e.name)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)!.data.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(events.at(-1)!.data.response).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });

    const stream = await client.responses.create({ model: p.faultModel('error-in-stream'), input: 'Break again', stream: true });
    await expect(
      (async () => {
        for await (const _ of stream) {
          /* drain until the error event */
        }
      })(),
    ).rejects.toThrow();
  });

  it('answers in the JSON schema of text.format', async () => {
    mock.script({ content: JSON.stringify(REPORT), finish_reason: 'stop' });
    const r = await client.responses.create({ model: p.model, input: 'Report the weather in Oslo', text: { format: { type: 'json_schema', name: 'report', schema: REPORT_SCHEMA, strict: true } } });
    expect(JSON.parse(r.output_text)).toEqual(REPORT);
    expect(r.text?.format).toMatchObject({ type: 'json_schema', name: 'report' });
    expect(p.inspect(mock.requests[0]!).jsonSchema).toBe(true);
    expectOptimizerBlock((r as any).optimizer);
  });

  it("serves the AI SDK's default provider (`provider('auto')`): generateText and streamText, the block in the raw response", async () => {
    const provider = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: tenant.api_key });
    mock.script({ content: ANSWER, finish_reason: 'stop' });
    const generated = await generateText({ model: provider('auto'), prompt: 'Describe Oslo in one line', maxRetries: 0 });
    expect(generated.text).toBe(ANSWER);
    expectOptimizerBlock((generated.response.body as any).optimizer);

    // as docs/recipes.md shows it: the annotation in the provider's metadata, store off
    const annotated = await generateText({
      model: provider('auto'),
      prompt: 'Classify: "I was charged twice"',
      maxRetries: 0,
      providerOptions: { openai: { metadata: { optimizer: JSON.stringify({ step: { id: 'triage' } }) }, store: false } },
    });
    expect(annotated.text).toBe(ANSWER);
    expectOptimizerBlock((annotated.response.body as any).optimizer);
    expect(await annotationOf(annotated.response.headers!['x-optimizer-call-id']!)).toMatchObject({ step: { id: 'triage' } });

    const streamed = streamText({ model: provider('auto'), prompt: 'Stream a line about Bergen', includeRawChunks: true, maxRetries: 0 });
    let text = '';
    const raw: any[] = [];
    for await (const part of streamed.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'raw') raw.push(part.rawValue);
      if (part.type === 'error') throw part.error;
    }
    expect(text).toBe(ANSWER);
    const completed = raw.find((c) => c.type === 'response.completed');
    expectOptimizerBlock(completed.response.optimizer);
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
  });

  it("runs the AI SDK's tool loop on the default provider with store off: the call, its result, the final answer", async () => {
    const provider = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: tenant.api_key });
    mock.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' });
    let asked: string | null = null;
    const get_weather = tool({
      description: 'Weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => {
        asked = city;
        mock.script({ content: FINAL, finish_reason: 'stop' });
        return Promise.resolve({ celsius: 21, conditions: 'sunny' });
      },
    });
    const result = await generateText({ model: provider(p.model), prompt: 'Tell me the weather in Oslo right now.', tools: { get_weather }, stopWhen: stepCountIs(3), maxRetries: 0, providerOptions: { openai: { store: false } } });
    expect(asked).toBe('Oslo');
    expect(result.text).toBe(FINAL);
    expect(result.steps).toHaveLength(2);
    expect(mock.requests).toHaveLength(2);
    expect(p.inspect(mock.requests[1]!).toolResults).toBe(1);
  });
});

describe('POST /v1/responses refusals and replays', () => {
  let mock: ConformanceMock;
  let gw: TestGateway;
  let key: string;

  beforeAll(async () => {
    mock = await openai.startMock(PLATFORM_KEY);
    gw = await startGateway({ env: openai.env(mock.url, PLATFORM_KEY) });
    key = (await signup(gw)).api_key;
  });
  afterAll(async () => {
    await gw?.close();
    await mock?.close();
  });

  const post = (body: object, headers: Record<string, string> = {}) => fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify(body) });

  it.each([
    ['previous_response_id', { previous_response_id: 'resp_123' }],
    ['store', { store: true }],
    ['tools.0.type', { tools: [{ type: 'web_search' }] }],
    ['input.1.type', { input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_1' }] }],
    ['conversation', { conversation: 'conv_1' }],
    ['metadata.optimizer', { metadata: { optimizer: '{not json' } }],
    ['optimizer.step.id', { optimizer: { step: { id: 5 } } }],
  ])('refuses %s with a 400 in the catalogue envelope naming it, and calls no vendor', async (param, extra) => {
    mock.reset();
    const r = await post({ model: openai.model, input: 'hello', ...extra });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error', param });
    expect(body.error.message).toContain(param);
    expect(mock.requests).toHaveLength(0);
  });

  it('is read off the socket when the fast path is on (node:http never sees it), and served by Fastify when it is off', async () => {
    // both doors in every run: this file's gateway and one with the switch the other way
    const other = await startGateway({ env: { ...openai.env(mock.url, PLATFORM_KEY), FAST_PATH: gw.services.config.FAST_PATH === 'on' ? 'off' : 'on' } });
    try {
      const otherKey = (await signup(other)).api_key;
      for (const [door, doorKey] of [
        [gw, key],
        [other, otherKey],
      ] as const) {
        expect(await requestsSeenByNode(door, doorKey)).toBe(door.services.config.FAST_PATH === 'off' ? 1 : 0);
      }
    } finally {
      await other.close();
    }
  });

  /** Sends one Responses API call on a fresh keep-alive connection; answers how many requests node:http saw. */
  async function requestsSeenByNode(door: TestGateway, doorKey: string): Promise<number> {
    let viaNode = 0;
    const counted = () => viaNode++;
    door.app.server.on('request', counted);
    const agent = new Agent({ keepAlive: true }); // a fresh connection: one handed to node:http stays there
    try {
      mock.reset();
      mock.script({ content: ANSWER, finish_reason: 'stop' });
      const body = JSON.stringify({ model: openai.model, input: 'Which door served this?' });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${door.url}/v1/responses`, { method: 'POST', agent, headers: { ...authed(doorKey), 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message', content: [{ text: ANSWER }] }] });
      return viaNode;
    } finally {
      agent.destroy();
      door.app.server.removeListener('request', counted);
    }
  }

  it('replays a repeated Idempotency-Key as the same response, without a second vendor call', async () => {
    mock.reset();
    mock.script({ content: ANSWER, finish_reason: 'stop' });
    const body = { model: openai.model, input: 'Once only, please' };
    const a = await post(body, { 'idempotency-key': 'responses-once' });
    const b = await post(body, { 'idempotency-key': 'responses-once' });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const [ja, jb] = (await Promise.all([a.json(), b.json()])) as any[];
    expect(jb).toEqual(ja);
    expect(ja).toMatchObject({ object: 'response', output: [{ type: 'message' }] });
    expect(mock.requests).toHaveLength(1);
  });
});
