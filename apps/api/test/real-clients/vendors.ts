// What each vendor's mock must have received, in that vendor's own wire format: the
// proof that a real client's OpenAI-shaped request was translated, not passed through.
import { expect } from 'vitest';
import { conformance as anthropic } from '../conformance/providers/anthropic.ts';
import { conformance as bedrock } from '../conformance/providers/bedrock.ts';
import { conformance as gemini } from '../conformance/providers/gemini.ts';
import type { ConformanceMock, ProviderConformance } from '../conformance/descriptor.ts';

type Req = ConformanceMock['requests'][number];

export interface VendorWire {
  conformance: ProviderConformance;
  /** A non-streaming request that offers get_weather in the vendor's tool shape. */
  offersWeatherTool(req: Req): void;
  /** The follow-up carries the model's call and its result, paired by the vendor's own id/name. */
  returnsToolResult(req: Req, result: object): void;
  /** A streaming request, on the vendor's streaming endpoint. */
  streamed(req: Req): void;
  /** The JSON schema the vendor was told to answer in (its own structured-output mechanism). */
  outputSchema(req: Req): unknown;
}

const anthropicWire: VendorWire = {
  conformance: anthropic,
  offersWeatherTool(req) {
    expect(req.path).toMatch(/\/messages$/);
    expect(req.body.max_tokens).toEqual(expect.any(Number));
    expect(req.body.stream).not.toBe(true);
    expect(req.body.tools[0]).toMatchObject({ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } });
  },
  returnsToolResult(req, result) {
    const blocks = req.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.map((b: any) => ({ role: m.role, ...b })) : []));
    const use = blocks.find((b: any) => b.type === 'tool_use');
    const res = blocks.find((b: any) => b.type === 'tool_result');
    expect(use).toMatchObject({ role: 'assistant', name: 'get_weather', input: { city: 'Oslo' } });
    expect(res).toMatchObject({ role: 'user', tool_use_id: use.id });
    const text = typeof res.content === 'string' ? res.content : res.content.map((b: any) => b.text).join('');
    expect(JSON.parse(text)).toEqual(result);
  },
  streamed(req) {
    expect(req.path).toMatch(/\/messages$/);
    expect(req.body.stream).toBe(true);
    expect(req.body.max_tokens).toEqual(expect.any(Number));
  },
  outputSchema(req) {
    // Anthropic has no response_format: the adapter forces a json_output tool.
    expect(req.body.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
    return req.body.tools.find((t: any) => t.name === 'json_output')?.input_schema;
  },
};

const geminiWire: VendorWire = {
  conformance: gemini,
  offersWeatherTool(req) {
    expect(req.path).toMatch(/\/models\/gemini-2\.5-flash:generateContent$/);
    expect(req.body.contents).toEqual(expect.any(Array));
    expect(req.body.tools[0].functionDeclarations[0]).toMatchObject({ name: 'get_weather' });
  },
  returnsToolResult(req, result) {
    const parts = req.body.contents.flatMap((c: any) => (c.parts ?? []).map((p: any) => ({ role: c.role, ...p })));
    const call = parts.find((p: any) => p.functionCall);
    const res = parts.find((p: any) => p.functionResponse);
    expect(call).toMatchObject({ role: 'model', functionCall: { name: 'get_weather', args: { city: 'Oslo' } } });
    expect(res.functionResponse.name).toBe('get_weather');
    expect(JSON.stringify(res.functionResponse.response)).toContain(JSON.stringify(result).slice(1, -1));
  },
  streamed(req) {
    expect(req.path).toMatch(/:streamGenerateContent$/);
    expect(req.body.contents).toEqual(expect.any(Array));
  },
  outputSchema(req) {
    expect(req.body.generationConfig.responseMimeType).toBe('application/json');
    return req.body.generationConfig.responseSchema;
  },
};

const bedrockWire: VendorWire = {
  conformance: bedrock,
  offersWeatherTool(req) {
    expect(req.path).toMatch(/^\/model\/[^/]+\/converse$/);
    expect(req.body.messages[0]).toMatchObject({ role: 'user', content: [{ text: expect.any(String) }] });
    expect(req.body.toolConfig.tools[0].toolSpec).toMatchObject({ name: 'get_weather', inputSchema: { json: { type: 'object' } } });
  },
  returnsToolResult(req, result) {
    const blocks = req.body.messages.flatMap((m: any) => (m.content ?? []).map((b: any) => ({ role: m.role, ...b })));
    const use = blocks.find((b: any) => b.toolUse);
    const res = blocks.find((b: any) => b.toolResult);
    expect(use).toMatchObject({ role: 'assistant', toolUse: { name: 'get_weather', input: { city: 'Oslo' } } });
    expect(res).toMatchObject({ role: 'user', toolResult: { toolUseId: use.toolUse.toolUseId } });
    const content = res.toolResult.content[0];
    expect(content.json ?? JSON.parse(content.text)).toEqual(result);
  },
  streamed(req) {
    expect(req.path).toMatch(/^\/model\/[^/]+\/converse-stream$/);
    expect(req.body.messages).toEqual(expect.any(Array));
  },
  outputSchema(req) {
    // Converse has no response_format: the adapter forces a json_response tool.
    expect(req.path).toMatch(/^\/model\/[^/]+\/converse$/);
    expect(req.body.toolConfig.toolChoice).toEqual({ tool: { name: 'json_response' } });
    return req.body.toolConfig.tools.find((t: any) => t.toolSpec?.name === 'json_response')?.toolSpec.inputSchema.json;
  },
};

export const vendors: VendorWire[] = [anthropicWire, geminiWire, bedrockWire];
