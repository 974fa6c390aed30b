// The conformance matrix: every provider, through the gateway, driven by the
// official openai SDK, on the same cases. A provider lacking a feature opts out
// explicitly, and the gateway must then refuse that case with a clear 400.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signup, startGateway, type TestGateway } from '../support/gateway.ts';
import { cases, type ConformanceMock, type ProviderConformance } from './descriptor.ts';

const modules = import.meta.glob<{ conformance: ProviderConformance }>('./providers/*.ts', { eager: true });
const providers = Object.values(modules).map((m) => m.conformance);
const PLATFORM_KEY = 'sk-conformance-platform-key';

const weather: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const time: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', description: 'Local time in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe.each(providers.map((p) => [p.provider, p] as const))('%s', (_name, p) => {
  let mock: ConformanceMock;
  let gw: TestGateway;
  let client: OpenAI;
  let apiKey: string;

  beforeAll(async () => {
    mock = await p.startMock(PLATFORM_KEY);
    gw = await startGateway({ env: p.env(mock.url, PLATFORM_KEY) });
    apiKey = (await signup(gw)).api_key;
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  const last = () => p.inspect(mock.requests.at(-1)!);
  const user = (text: string): OpenAI.Chat.Completions.ChatCompletionMessageParam => ({ role: 'user', content: text });

  /** Runs a case, or for an opted-out one checks the gateway refuses it with a clear 400. */
  function matrixCase(name: (typeof cases)[number], run: () => Promise<void>, request?: () => Promise<unknown>) {
    const reason = p.optOut?.[name];
    if (!reason) return it(name, run);
    return it(`${name} (opted out: ${reason})`, async () => {
      expect(request, `opting out of ${name} needs the request that shows the 400`).toBeDefined();
      await expect(request!()).rejects.toMatchObject({ status: 400 });
      expect(mock.requests).toHaveLength(0);
    });
  }

  matrixCase('plain', async () => {
    const r = await client.chat.completions.create({ model: p.model, messages: [user('Say hi to Ada')] });
    expect(r.object).toBe('chat.completion');
    expect(r.choices[0]!.message.role).toBe('assistant');
    expect(r.choices[0]!.message.content).toEqual(expect.any(String));
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(r.usage!.completion_tokens).toBeGreaterThan(0);
    expect((r as unknown as { optimizer: object }).optimizer).toBeDefined();
    expect(last().userTexts).toEqual(['Say hi to Ada']);
  });

  matrixCase('stream', async () => {
    const s = await client.chat.completions.create({ model: p.model, messages: [user('Count to five')], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.Completions.CompletionUsage | undefined;
    let optimizer: unknown;
    for await (const c of s) {
      text += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      usage = c.usage ?? usage;
      optimizer = (c as unknown as { optimizer?: unknown }).optimizer ?? optimizer;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe('stop');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    expect(optimizer).toBeDefined();
  });

  matrixCase('system', async () => {
    await client.chat.completions.create({ model: p.model, messages: [{ role: 'system', content: 'Answer in French.' }, user('Hello')] });
    expect(last().system).toBe('Answer in French.');
  });

  matrixCase('multi-turn', async () => {
    await client.chat.completions.create({ model: p.model, messages: [user('My name is Ada.'), { role: 'assistant', content: 'Hello Ada.' }, user('What is my name?')] });
    expect(last().userTexts).toEqual(['My name is Ada.', 'What is my name?']);
  });

  const imageRequest = () =>
    client.chat.completions.create({ model: p.model, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: PIXEL } }] }] });
  matrixCase(
    'image',
    async () => {
      await imageRequest();
      expect(last().imageCount).toBe(1);
    },
    imageRequest,
  );

  matrixCase('tools-one', async () => {
    mock.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' });
    const r = await client.chat.completions.create({ model: p.model, messages: [user('Weather in Oslo?')], tools: [weather] });
    const call = r.choices[0]!.message.tool_calls![0]!;
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.id).toEqual(expect.any(String));
    expect(call.type).toBe('function');
    expect((call as { function: { name: string; arguments: string } }).function.name).toBe('get_weather');
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: 'Oslo' });
    expect(last().toolNames).toEqual(['get_weather']);
  });

  const parallelRequest = () => client.chat.completions.create({ model: p.model, messages: [user('Weather and time in Oslo?')], tools: [weather, time] });
  matrixCase(
    'tools-parallel',
    async () => {
      mock.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }, { name: 'get_time', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' });
      const s = await client.chat.completions.create({ model: p.model, messages: [user('Weather and time in Oslo?')], tools: [weather, time], stream: true });
      const calls = new Map<number, { name: string; args: string; id?: string }>();
      for await (const c of s) {
        for (const tc of c.choices[0]?.delta?.tool_calls ?? []) {
          const cur = calls.get(tc.index) ?? { name: '', args: '' };
          if (tc.id) cur.id = tc.id;
          if (tc.function?.name) cur.name = tc.function.name;
          cur.args += tc.function?.arguments ?? '';
          calls.set(tc.index, cur);
        }
      }
      expect([...calls.values()].map((c) => c.name)).toEqual(['get_weather', 'get_time']);
      for (const c of calls.values()) {
        expect(c.id).toEqual(expect.any(String));
        expect(JSON.parse(c.args)).toEqual({ city: 'Oslo' });
      }
    },
    parallelRequest,
  );

  matrixCase('tools-forced', async () => {
    mock.script({ content: null, tool_calls: [{ name: 'get_time', arguments: '{"city":"Lima"}' }], finish_reason: 'tool_calls' });
    await client.chat.completions.create({ model: p.model, messages: [user('Anything')], tools: [weather, time], tool_choice: { type: 'function', function: { name: 'get_time' } } });
    expect(last().forcedTool).toBe('get_time');
  });

  matrixCase('tool-results', async () => {
    mock.script({ content: 'It is sunny in Oslo.', finish_reason: 'stop' });
    const r = await client.chat.completions.create({
      model: p.model,
      tools: [weather],
      messages: [
        user('Weather in Oslo?'),
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
      ],
    });
    expect(r.choices[0]!.message.content).toBe('It is sunny in Oslo.');
    expect(last().toolResults).toBe(1);
  });

  const schemaRequest = () =>
    client.chat.completions.create({
      model: p.model,
      messages: [user('A person, as JSON')],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } },
    });
  matrixCase(
    'json-schema',
    async () => {
      mock.script({ content: '{"name":"Ada"}', finish_reason: 'stop' });
      const r = await schemaRequest();
      expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ name: 'Ada' });
      expect(last().jsonSchema).toBe(true);
    },
    schemaRequest,
  );

  matrixCase('stop', async () => {
    await client.chat.completions.create({ model: p.model, messages: [user('List things')], stop: ['END', '###'] });
    expect(last().stop).toEqual(['END', '###']);
  });

  matrixCase('max-tokens', async () => {
    mock.script({ content: 'This answer was cut', finish_reason: 'length' });
    const r = await client.chat.completions.create({ model: p.model, messages: [user('Write a long essay')], max_tokens: 5 });
    expect(r.choices[0]!.finish_reason).toBe('length');
    expect(last().maxTokens).toBe(5);
  });

  matrixCase('bad-key', async () => {
    await expect(
      client.chat.completions.create({ model: p.model, messages: [user('x')] }, { headers: { 'x-provider-key': 'sk-wrong-key-for-vendor' } }),
    ).rejects.toMatchObject({ status: 401 });
  });

  matrixCase('rate-limited', async () => {
    const err = await client.chat.completions.create({ model: p.faultModel('rate-limited'), messages: [user('x')] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429 });
    expect((err as { headers: Headers }).headers.get('retry-after')).toEqual(expect.any(String));
  });

  matrixCase('server-error', async () => {
    await expect(client.chat.completions.create({ model: p.faultModel('error-5xx'), messages: [user('x')] })).rejects.toMatchObject({ status: 502 });
  });

  matrixCase('error-mid-stream', async () => {
    const s = await client.chat.completions.create({ model: p.faultModel('error-in-stream'), messages: [user('x')], stream: true });
    await expect(
      (async () => {
        for await (const _ of s) {
          /* drain until the error event */
        }
      })(),
    ).rejects.toThrow();
  });
});
