import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeMessage } from '../src/bedrock/eventstream.ts';
import { signForTest, verifySignature } from '../src/bedrock/sigv4.ts';
import { startBedrockMock, type MockVendor } from '../src/index.ts';

type Json = Record<string, any>;

const CREDS = { accessKeyId: 'AKIAMOCKTEST00000001', secretAccessKey: 'mock/Secret+Key/000000000000000000000000' };
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
let vendor: MockVendor;

beforeAll(async () => {
  vendor = await startBedrockMock({ ...CREDS, region: 'us-east-1' });
});
afterAll(async () => {
  await vendor.close();
});
beforeEach(() => vendor.reset());

const hello = [{ role: 'user', content: [{ text: 'Hello there, how are you today?' }] }];

interface CallOpts {
  model?: string;
  stream?: boolean;
  creds?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  region?: string;
  unsigned?: boolean;
  signal?: AbortSignal;
}

/** A Converse call signed the way an AWS SDK signs it. */
function call(body: unknown, o: CallOpts = {}): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const url = new URL(`${vendor.url}/model/${encodeURIComponent(o.model ?? MODEL)}/${o.stream ? 'converse-stream' : 'converse'}`);
  const headers = o.unsigned
    ? { 'content-type': 'application/json' }
    : signForTest({ method: 'POST', url: url.pathname, host: url.host, body: Buffer.from(raw), headers: { 'content-type': 'application/json' } }, o.creds ?? CREDS, o.region ?? 'us-east-1', 'bedrock');
  return fetch(url, { method: 'POST', headers, body: raw, ...(o.signal ? { signal: o.signal } : {}) });
}

async function awsError(res: Response): Promise<{ status: number; type: string; message: string }> {
  const body = (await res.json()) as Json;
  return { status: res.status, type: (res.headers.get('x-amzn-errortype') ?? '').split(':')[0]!, message: body.message };
}

/** Splits an event-stream body into messages, checking both CRCs. */
function frames(buf: Buffer): { headers: Record<string, string>; payload: Json }[] {
  const out: { headers: Record<string, string>; payload: Json }[] = [];
  for (let at = 0; at < buf.length; ) {
    const total = buf.readUInt32BE(at);
    const headersLen = buf.readUInt32BE(at + 4);
    expect(crc32(buf.subarray(at, at + 8))).toBe(buf.readUInt32BE(at + 8));
    expect(crc32(buf.subarray(at, at + total - 4))).toBe(buf.readUInt32BE(at + total - 4));
    const headers: Record<string, string> = {};
    for (let h = at + 12; h < at + 12 + headersLen; ) {
      const n = buf.readUInt8(h);
      const name = buf.toString('utf8', h + 1, h + 1 + n);
      expect(buf.readUInt8(h + 1 + n)).toBe(7);
      const len = buf.readUInt16BE(h + 2 + n);
      headers[name] = buf.toString('utf8', h + 4 + n, h + 4 + n + len);
      h += 4 + n + len;
    }
    out.push({ headers, payload: JSON.parse(buf.toString('utf8', at + 12 + headersLen, at + total - 4)) as Json });
    at += total;
  }
  return out;
}

const streamed = async (res: Response) => frames(Buffer.from(await res.arrayBuffer()));

describe('the event-stream encoder', () => {
  it("matches AWS's payload_one_str_header codec vector byte for byte", () => {
    const expected = Buffer.from('0000003d0000002007fd83960c636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e7b27666f6f273a27626172277d8d9c08b1', 'hex');
    expect(encodeMessage({ 'content-type': 'application/json' }, "{'foo':'bar'}")).toEqual(expected);
    expect(encodeMessage({}, '')).toEqual(Buffer.from('000000100000000005c248eb7d98c8ff', 'hex'));
  });
});

describe('SigV4 verification', () => {
  it("accepts AWS's get-vanilla test-suite request and refuses it once anything changes", () => {
    const suite = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
    const at = Date.parse('2015-08-30T12:36:00Z');
    const headers = {
      host: 'example.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
      authorization: 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    };
    expect(verifySignature({ method: 'GET', url: '/', headers, body: Buffer.alloc(0) }, suite, 'us-east-1', 'service', at)).toBeNull();
    expect(verifySignature({ method: 'POST', url: '/', headers, body: Buffer.alloc(0) }, suite, 'us-east-1', 'service', at)?.type).toBe('InvalidSignatureException');
    expect(verifySignature({ method: 'GET', url: '/', headers, body: Buffer.alloc(0) }, suite, 'us-east-1', 'service', at + 6 * 60_000)?.message).toMatch(/^Signature expired/);
  });

  it('answers a request signed with the wrong secret with 403 InvalidSignatureException', async () => {
    const res = await call({ messages: hello }, { creds: { ...CREDS, secretAccessKey: 'not-the-secret' } });
    expect(await awsError(res)).toEqual({
      status: 403,
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    });
  });

  it('answers an unknown access key with 403 UnrecognizedClientException, and no signature at all with MissingAuthenticationTokenException', async () => {
    expect(await awsError(await call({ messages: hello }, { creds: { ...CREDS, accessKeyId: 'AKIAOTHER00000000000' } }))).toMatchObject({
      status: 403,
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
    expect(await awsError(await call({ messages: hello }, { unsigned: true }))).toMatchObject({ status: 403, type: 'MissingAuthenticationTokenException' });
  });

  it('refuses a signature scoped to another region', async () => {
    expect(await awsError(await call({ messages: hello }, { region: 'eu-west-1' }))).toMatchObject({ status: 403, type: 'InvalidSignatureException', message: expect.stringContaining('valid region') });
  });

  it('requires the session token it was started with', async () => {
    const token = 'FwoGZXIvYXdzEMOCKTOKEN';
    const locked = await startBedrockMock({ apiKey: `${CREDS.accessKeyId}:${CREDS.secretAccessKey}:${token}` });
    const url = new URL(`${locked.url}/model/m/converse`);
    const raw = JSON.stringify({ messages: hello });
    const send = (sessionToken?: string) =>
      fetch(url, {
        method: 'POST',
        body: raw,
        headers: signForTest({ method: 'POST', url: url.pathname, host: url.host, body: Buffer.from(raw), headers: { 'content-type': 'application/json' } }, { ...CREDS, ...(sessionToken ? { sessionToken } : {}) }, 'us-east-1', 'bedrock'),
      });
    expect((await send()).status).toBe(403);
    expect((await send(token)).status).toBe(200);
    await locked.close();
  });
});

describe('Converse', () => {
  it('answers with the Converse shape, echoing the last user text, with usage and a request id', async () => {
    const res = await call({ system: [{ text: 'Be brief.' }], messages: hello });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await res.json()) as Json;
    expect(body.output.message).toEqual({ role: 'assistant', content: [{ text: 'mock answer to: Hello there, how are you today?' }] });
    expect(body.stopReason).toBe('end_turn');
    const prompt = Math.ceil('Be brief.Hello there, how are you today?'.length / 4);
    expect(body.usage).toMatchObject({ inputTokens: prompt, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 });
    expect(body.usage.totalTokens).toBe(body.usage.inputTokens + body.usage.outputTokens);
    expect(body.metrics.latencyMs).toEqual(expect.any(Number));
    expect(vendor.requests[0]).toMatchObject({ method: 'POST', path: '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', body: { messages: hello } });
  });

  it('plays a script in Converse terms: toolUse blocks, tool_use stop, cache reads apart from inputTokens', async () => {
    vendor.script({ content: 'Checking.', tool_calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}', id: 'tooluse_fixed' }], usage: { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 60 } });
    const body = (await (await call({ messages: hello, toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] } })).json()) as Json;
    expect(body.output.message.content).toEqual([{ text: 'Checking.' }, { toolUse: { toolUseId: 'tooluse_fixed', name: 'get_weather', input: { city: 'Oslo' } } }]);
    expect(body.stopReason).toBe('tool_use');
    expect(body.usage).toEqual({ inputTokens: 40, outputTokens: 20, totalTokens: 120, cacheReadInputTokens: 60, cacheWriteInputTokens: 0 });
  });

  it('calls a forced tool with the scripted JSON content as its input', async () => {
    vendor.script({ content: '{"name":"Ada"}', finish_reason: 'stop' });
    const tool = { toolSpec: { name: 'json_response', inputSchema: { json: { type: 'object' } } } };
    const body = (await (await call({ messages: hello, toolConfig: { tools: [tool], toolChoice: { tool: { name: 'json_response' } } } })).json()) as Json;
    expect(body.output.message.content).toEqual([{ toolUse: { toolUseId: expect.stringMatching(/^tooluse_mock/), name: 'json_response', input: { name: 'Ada' } } }]);
    expect(body.stopReason).toBe('tool_use');
  });

  it('calls the first tool by default, and answers in text after a toolResult', async () => {
    const toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } }] };
    const first = (await (await call({ messages: hello, toolConfig })).json()) as Json;
    expect(first.output.message.content[0].toolUse).toMatchObject({ name: 'get_weather', input: { city: 'mock' } });
    const id = first.output.message.content[0].toolUse.toolUseId;
    const after = (await (
      await call({ toolConfig, messages: [...hello, first.output.message, { role: 'user', content: [{ toolResult: { toolUseId: id, content: [{ text: 'sunny' }] } }] }] })
    ).json()) as Json;
    expect(after.output.message.content[0].text).toMatch(/^mock answer to:/);
  });

  it('cuts the default answer at maxTokens and at a stop sequence', async () => {
    const cut = (await (await call({ messages: hello, inferenceConfig: { maxTokens: 2 } })).json()) as Json;
    expect(cut).toMatchObject({ stopReason: 'max_tokens', output: { message: { content: [{ text: 'mock ans' }] } } });
    const stopped = (await (await call({ messages: hello, inferenceConfig: { stopSequences: ['there'] } })).json()) as Json;
    expect(stopped).toMatchObject({ stopReason: 'stop_sequence', output: { message: { content: [{ text: 'mock answer to: Hello ' }] } } });
  });

  it('reasons first when thinking is enabled, its tokens inside outputTokens', async () => {
    const body = (await (await call({ messages: hello, inferenceConfig: { maxTokens: 3000 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } } })).json()) as Json;
    expect(Object.keys(body.output.message.content[0])).toEqual(['reasoningContent']);
    expect(body.output.message.content[1].text).toMatch(/^mock answer/);
  });

  const malformed: [string, unknown, RegExp][] = [
    ['an unknown top-level field', { messages: hello, temperature: 0.5 }, /extraneous key \[temperature\]/],
    ['a conversation that starts with the assistant', { messages: [{ role: 'assistant', content: [{ text: 'Hi' }] }] }, /must start with a user message/],
    ['two user turns in a row', { messages: [...hello, ...hello] }, /must alternate between user and assistant roles/],
    ['a system role in messages', { messages: [{ role: 'system', content: [{ text: 'x' }] }] }, /satisfy enum value set: \[user, assistant\]/],
    ['blank text', { messages: [{ role: 'user', content: [{ text: '  ' }] }] }, /is blank/],
    ['an empty content list', { messages: [{ role: 'user', content: [] }] }, /is empty/],
    ['a block with two members', { messages: [{ role: 'user', content: [{ text: 'a', image: {} }] }] }, /exactly one/],
    ['an unknown image format', { messages: [{ role: 'user', content: [{ image: { format: 'bmp', source: { bytes: 'AA==' } } }] }] }, /enum value set: \[png, jpeg, gif, webp\]/],
    [
      'a toolResult without a matching toolUse',
      { messages: [...hello, { role: 'assistant', content: [{ text: 'ok' }] }, { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'x' }] } }] }], toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: {} } } }] } },
      /exceeds the number of toolUse blocks of previous turn/,
    ],
    [
      'a toolUse left unanswered',
      {
        messages: [...hello, { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'f', input: {} } }] }, { role: 'user', content: [{ text: 'next' }] }],
        toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: {} } } }] },
      },
      /Expected toolResult blocks at messages.2.content for the following Ids: t1/,
    ],
    ['tool blocks without toolConfig', { messages: [...hello, { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'f', input: {} } }] }] }, /toolConfig field must be defined/],
    ['a tool id with a colon', { messages: [...hello, { role: 'assistant', content: [{ toolUse: { toolUseId: 'call:1', name: 'f', input: {} } }] }], toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: {} } } }] } }, /regular expression pattern/],
    ['temperature above 1', { messages: hello, inferenceConfig: { temperature: 1.5 } }, /inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1/],
    ['maxTokens below 1', { messages: hello, inferenceConfig: { maxTokens: 0 } }, /greater than or equal to 1/],
    ['a forced tool that is not defined', { messages: hello, toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: {} } } }], toolChoice: { tool: { name: 'g' } } } }, /not defined/],
    ['a thinking budget at or above maxTokens', { messages: hello, inferenceConfig: { maxTokens: 1024 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } } }, /max_tokens` must be greater/],
  ];
  for (const [what, body, message] of malformed) {
    it(`refuses ${what} with 400 ValidationException`, async () => {
      const e = await awsError(await call(body));
      expect(e).toMatchObject({ status: 400, type: 'ValidationException' });
      expect(e.message).toMatch(message);
    });
  }

  it('refuses a body that is not JSON with 400 SerializationException, and an unknown route with 404', async () => {
    expect(await awsError(await call('{nope'))).toMatchObject({ status: 400, type: 'SerializationException' });
    const res = await fetch(`${vendor.url}/model/m/invoke-nothing`, { method: 'POST', body: '{}' });
    expect(await awsError(res)).toMatchObject({ status: 404, type: 'UnknownOperationException' });
  });
});

describe('ConverseStream', () => {
  it('streams event-stream frames: messageStart, deltas, messageStop, metadata (payloads padded with p)', async () => {
    const res = await call({ messages: hello }, { stream: true });
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const events = await streamed(res);
    expect(events.every((e) => e.headers[':message-type'] === 'event' && e.headers[':content-type'] === 'application/json')).toBe(true);
    const types = events.map((e) => e.headers[':event-type']);
    expect(types[0]).toBe('messageStart');
    expect(types.slice(-3)).toEqual(['contentBlockStop', 'messageStop', 'metadata']);
    expect(events[0]!.payload).toMatchObject({ role: 'assistant', p: expect.any(String) });
    const text = events.filter((e) => e.headers[':event-type'] === 'contentBlockDelta').map((e) => e.payload.delta.text).join('');
    expect(text).toBe('mock answer to: Hello there, how are you today?');
    expect(events.at(-2)!.payload.stopReason).toBe('end_turn');
    expect(events.at(-1)!.payload.usage.outputTokens).toBe(Math.ceil(text.length / 4));
  });

  it('streams tool calls as contentBlockStart then input fragments', async () => {
    vendor.script({ content: null, tool_calls: [{ name: 'a', arguments: '{"city":"Oslo"}' }, { name: 'b', arguments: '{"city":"Lima"}' }] });
    const events = await streamed(await call({ messages: hello }, { stream: true }));
    const starts = events.filter((e) => e.headers[':event-type'] === 'contentBlockStart').map((e) => e.payload);
    expect(starts.map((s) => [s.contentBlockIndex, s.start.toolUse.name])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    const input = (i: number) =>
      events
        .filter((e) => e.headers[':event-type'] === 'contentBlockDelta' && e.payload.contentBlockIndex === i)
        .map((e) => e.payload.delta.toolUse.input)
        .join('');
    expect(JSON.parse(input(1))).toEqual({ city: 'Lima' });
    expect(events.at(-2)!.payload.stopReason).toBe('tool_use');
  });
});

describe('fault models', () => {
  it('rate-limited answers 429 ThrottlingException with Retry-After', async () => {
    const res = await call({ messages: hello }, { model: 'rate-limited' });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await awsError(res)).toMatchObject({ status: 429, type: 'ThrottlingException' });
  });

  it('error-5xx answers 500 InternalServerException; flaky fails with 503 then succeeds', async () => {
    expect(await awsError(await call({ messages: hello }, { model: 'error-5xx' }))).toMatchObject({ status: 500, type: 'InternalServerException' });
    expect(await awsError(await call({ messages: hello }, { model: 'flaky' }))).toMatchObject({ status: 503, type: 'ServiceUnavailableException' });
    expect((await call({ messages: hello }, { model: 'flaky' })).status).toBe(200);
  });

  it('error-in-stream sends two events, then an internalServerException frame', async () => {
    const events = await streamed(await call({ messages: hello }, { model: 'error-in-stream', stream: true }));
    expect(events).toHaveLength(3);
    expect(events[2]!.headers).toMatchObject({ ':message-type': 'exception', ':exception-type': 'internalServerException' });
    expect(events[2]!.payload.message).toMatch(/unexpected error/);
  });

  it('reset-mid-stream drops the connection after two events, and stall holds it open until the client leaves', async () => {
    const res = await call({ messages: hello }, { model: 'reset-mid-stream', stream: true });
    await expect(res.arrayBuffer()).rejects.toThrow();
    const controller = new AbortController();
    const stalled = await call({ messages: hello }, { model: 'stall', stream: true, signal: controller.signal });
    const reader = stalled.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });
});
