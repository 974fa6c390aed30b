// Three real clients nobody here wrote — the official openai SDK, the Vercel AI SDK
// (`ai` with `@ai-sdk/openai-compatible`) and LangChain's ChatOpenAI — pointed at the
// gateway, drive Anthropic-, Gemini- and Bedrock-hosted models (each vendor's mock, started
// exactly as in the conformance matrix) with tools, streaming and structured output.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceMock } from './conformance/descriptor.ts';
import { signup, startGateway, type TestGateway } from './support/gateway.ts';
import { drivers, report, WEATHER_RESULT, type Target } from './real-clients/clients.ts';
import { vendors } from './real-clients/vendors.ts';

const PLATFORM_KEY = 'sk-real-clients-platform-key';
const STREAMED = 'Oslo is bright and sunny today, with a light breeze off the fjord.';
const FINAL = 'It is sunny in Oslo, 21 degrees.';
const REPORT = { city: 'Oslo', celsius: 21, conditions: 'sunny' } as const;

describe.each(vendors.map((v) => [v.conformance.provider, v] as const))('through the gateway to %s', (_name, vendor) => {
  const p = vendor.conformance;
  let mock: ConformanceMock;
  let gw: TestGateway;
  let target: Target;

  beforeAll(async () => {
    mock = await p.startMock(PLATFORM_KEY);
    gw = await startGateway({ env: p.env(mock.url, PLATFORM_KEY) });
    target = { baseURL: `${gw.url}/v1`, apiKey: (await signup(gw)).api_key, model: p.model };
  });
  afterAll(async () => {
    await gw?.close();
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  describe.each(drivers.map((d) => [d.name, d] as const))('%s', (_client, client) => {
    it('gets a tool call with parsed arguments, sends the result back and reads the final answer', async () => {
      mock.script({ content: null, tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' });
      const r = await client.toolRoundTrip(target, () => mock.script({ content: FINAL, finish_reason: 'stop' }));

      expect(r.call).toEqual({ id: expect.stringMatching(/\S/), name: 'get_weather', args: { city: 'Oslo' } });
      expect(r.finalText).toBe(FINAL);
      expect(mock.requests).toHaveLength(2);
      vendor.offersWeatherTool(mock.requests[0]!);
      expect(p.inspect(mock.requests[0]!).toolNames).toEqual(['get_weather']);
      vendor.returnsToolResult(mock.requests[1]!, WEATHER_RESULT);
      expect(p.inspect(mock.requests[1]!).toolResults).toBe(1);
    });

    it('streams an answer in several pieces that the client assembles into the full text', async () => {
      mock.script({ content: STREAMED, finish_reason: 'stop' });
      const pieces = await client.stream(target, 'Describe the weather in Oslo');

      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces.join('')).toBe(STREAMED);
      expect(mock.requests).toHaveLength(1);
      vendor.streamed(mock.requests[0]!);
      expect(p.inspect(mock.requests[0]!).userTexts).toEqual(['Describe the weather in Oslo']);
    });

    it('gets structured output that the client parses against its zod schema', async () => {
      mock.script({ content: JSON.stringify(REPORT), finish_reason: 'stop' });
      const parsed = await client.structured(target, 'Report the weather in Oslo');

      expect(parsed).toEqual(REPORT);
      expect(report.parse(parsed)).toEqual(REPORT);
      expect(mock.requests).toHaveLength(1);
      expect(p.inspect(mock.requests[0]!).jsonSchema).toBe(true);
      expect(vendor.outputSchema(mock.requests[0]!)).toMatchObject({
        type: 'object',
        properties: { city: { type: 'string' }, celsius: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] } },
        required: ['city', 'celsius', 'conditions'],
      });
    });
  });
});
