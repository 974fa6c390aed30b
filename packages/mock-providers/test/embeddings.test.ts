// The mock vendors' embedding endpoints: each answers in its vendor's wire format and
// refuses what the real vendor refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signForTest } from '../src/bedrock/sigv4.ts';
import { startBedrockMock, startGeminiMock, startOpenAIMock, type MockVendor } from '../src/index.ts';

type Json = Record<string, any>;
const KEY = 'sk-mock-embeddings';

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Json; headers: Headers }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Json, headers: r.headers };
}

describe('OpenAI /v1/embeddings', () => {
  let openai: MockVendor;
  let mistral: MockVendor;
  let azure: MockVendor;
  let groq: MockVendor;
  const auth = { authorization: `Bearer ${KEY}` };
  beforeAll(async () => {
    [openai, mistral, azure, groq] = await Promise.all([
      startOpenAIMock({ apiKey: KEY }),
      startOpenAIMock({ apiKey: KEY, dialect: 'mistral' }),
      startOpenAIMock({ apiKey: KEY, dialect: 'azure' }),
      startOpenAIMock({ apiKey: KEY, dialect: 'groq' }),
    ]);
  });
  afterAll(async () => Promise.all([openai, mistral, azure, groq].map((v) => v.close())));

  it('answers a list of floats or base64 float32, with usage, deterministically', async () => {
    const a = await post(`${openai.url}/embeddings`, { model: 'text-embedding-3-small', input: ['a', 'b'] }, auth);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ object: 'list', model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } });
    expect(a.json.data.map((d: Json) => [d.object, d.index, d.embedding.length])).toEqual([['embedding', 0, 1536], ['embedding', 1, 1536]]);
    const b = await post(`${openai.url}/embeddings`, { model: 'text-embedding-3-small', input: 'a', encoding_format: 'base64', dimensions: 8 }, auth);
    const bytes = Buffer.from(b.json.data[0].embedding as string, 'base64');
    expect(bytes.length).toBe(32);
    const again = await post(`${openai.url}/embeddings`, { model: 'text-embedding-3-small', input: 'a', dimensions: 8 }, auth);
    expect(Array.from({ length: 8 }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(again.json.data[0].embedding);
  });

  it.each([
    [{ input: 'x' }, 400, 'you must provide a model parameter'],
    [{ model: 'text-embedding-3-small' }, 400, "'input' is a required property"],
    [{ model: 'text-embedding-3-small', input: '' }, 400, "'$.input' is invalid"],
    [{ model: 'text-embedding-3-small', input: [1, 'a'] }, 400, "'$.input' is invalid"],
    [{ model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' }, 400, "is not one of ['float', 'base64']"],
    [{ model: 'text-embedding-3-small', input: 'x', temperature: 1 }, 400, 'Unrecognized request argument supplied: temperature'],
    [{ model: 'text-embedding-ada-002', input: 'x', dimensions: 64 }, 400, 'does not support specifying dimensions'],
    [{ model: 'text-embedding-3-small', input: 'x', dimensions: 4096 }, 400, "Invalid value for 'dimensions'"],
    [{ model: 'gpt-4o-mini', input: 'x' }, 404, 'does not exist'],
  ])('refuses %j like OpenAI', async (body, status, message) => {
    const r = await post(`${openai.url}/embeddings`, body, auth);
    expect(r.status).toBe(status);
    expect(r.json.error.message).toContain(message);
  });

  it('answers 401 without the key and 429 with Retry-After for the rate-limited model', async () => {
    expect((await post(`${openai.url}/embeddings`, { model: 'text-embedding-3-small', input: 'x' })).status).toBe(401);
    const limited = await post(`${openai.url}/embeddings`, { model: 'rate-limited', input: 'x' }, auth);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it("speaks Mistral's strict request model: output_dimension, 422 for OpenAI's names, no token input", async () => {
    const ok = await post(`${mistral.url}/embeddings`, { model: 'codestral-embed', input: ['a'], output_dimension: 16 }, auth);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ id: expect.stringMatching(/^embd-/), usage: { prompt_tokens: 1, total_tokens: 1, completion_tokens: 0 } });
    expect(ok.json.data[0].embedding).toHaveLength(16);
    const dims = await post(`${mistral.url}/embeddings`, { model: 'mistral-embed', input: ['a'], dimensions: 16 }, auth);
    expect(dims.status).toBe(422);
    expect(dims.json.message.detail[0]).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'dimensions'] });
    expect((await post(`${mistral.url}/embeddings`, { model: 'mistral-embed', input: [[1, 2]] }, auth)).status).toBe(422);
  });

  it("serves Azure's deployment path with an api-version, and Groq has no embeddings route", async () => {
    const ok = await post(`${azure.url}/deployments/text-embedding-3-small/embeddings?api-version=2024-10-21`, { input: 'a' }, { 'api-key': KEY });
    expect(ok.status).toBe(200);
    expect(ok.json.data[0].embedding).toHaveLength(1536);
    expect((await post(`${azure.url}/deployments/text-embedding-3-small/embeddings`, { input: 'a' }, { 'api-key': KEY })).status).toBe(404);
    expect((await post(`${groq.url}/embeddings`, { model: 'text-embedding-3-small', input: 'a' }, auth)).status).toBe(404);
  });
});

describe('Gemini embedContent / batchEmbedContents', () => {
  let gemini: MockVendor;
  const key = { 'x-goog-api-key': KEY };
  beforeAll(async () => {
    gemini = await startGeminiMock({ apiKey: KEY });
  });
  afterAll(() => gemini.close());

  it('answers {embedding: {values}} and {embeddings: [{values}]}, with the asked size', async () => {
    const one = await post(`${gemini.url}/models/gemini-embedding-001:embedContent`, { content: { parts: [{ text: 'hi' }] }, outputDimensionality: 64 }, key);
    expect(one.status).toBe(200);
    expect(one.json.embedding.values).toHaveLength(64);
    const batch = await post(
      `${gemini.url}/models/text-embedding-004:batchEmbedContents`,
      { requests: ['a', 'b'].map((text) => ({ model: 'models/text-embedding-004', content: { parts: [{ text }] }, taskType: 'RETRIEVAL_DOCUMENT' })) },
      key,
    );
    expect(batch.json.embeddings.map((e: Json) => e.values.length)).toEqual([768, 768]);
  });

  it.each([
    ['embedContent', { content: { parts: [{ text: 'x' }] }, dimensions: 3 }, 400, 'Unknown name "dimensions"'],
    ['embedContent', { content: { parts: [] } }, 400, 'contents is not specified'],
    ['embedContent', { content: { parts: [{ text: 'x' }] }, taskType: 'NOPE' }, 400, 'Invalid value'],
    ['batchEmbedContents', { requests: [{ model: 'models/other', content: { parts: [{ text: 'x' }] } }] }, 400, 'does not match the model'],
    ['batchEmbedContents', { requests: Array.from({ length: 101 }, () => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'x' }] } })) }, 400, 'at most 100'],
  ])('refuses a bad %s body like Gemini', async (method, body, status, message) => {
    const r = await post(`${gemini.url}/models/gemini-embedding-001:${method}`, body, key);
    expect(r.status).toBe(status);
    expect(r.json.error.message).toContain(message);
  });

  it('answers 404 for a model that does not embed and 429 for the rate-limited one', async () => {
    const r = await post(`${gemini.url}/models/gemini-2.5-flash:embedContent`, { content: { parts: [{ text: 'x' }] } }, key);
    expect(r.status).toBe(404);
    expect(r.json.error.status).toBe('NOT_FOUND');
    expect((await post(`${gemini.url}/models/rate-limited:embedContent`, { content: { parts: [{ text: 'x' }] } }, key)).json.error.status).toBe('RESOURCE_EXHAUSTED');
  });
});

describe('Bedrock InvokeModel embeddings', () => {
  const CREDS = { accessKeyId: 'AKIAMOCKEMBED0000001', secretAccessKey: 'mock/Embed+Secret/0000000000000000000000' };
  let bedrock: MockVendor;
  beforeAll(async () => {
    bedrock = await startBedrockMock({ ...CREDS, region: 'us-east-1' });
  });
  afterAll(() => bedrock.close());

  function invoke(model: string, body: unknown, creds = CREDS) {
    const raw = JSON.stringify(body);
    const url = new URL(`${bedrock.url}/model/${encodeURIComponent(model)}/invoke`);
    const headers = signForTest({ method: 'POST', url: url.pathname, host: url.host, body: Buffer.from(raw), headers: { 'content-type': 'application/json' } }, creds, 'us-east-1', 'bedrock');
    return fetch(url, { method: 'POST', headers, body: raw });
  }

  it("answers Titan V2's and Cohere's native bodies, with the token count header", async () => {
    const titan = await invoke('amazon.titan-embed-text-v2:0', { inputText: 'hello there', dimensions: 256, normalize: true });
    expect(titan.status).toBe(200);
    expect(titan.headers.get('x-amzn-bedrock-input-token-count')).toBe('3');
    const t = (await titan.json()) as Json;
    expect(t.embedding).toHaveLength(256);
    expect(t).toMatchObject({ inputTextTokenCount: 3, embeddingsByType: { float: t.embedding } });
    const cohere = await invoke('cohere.embed-english-v3', { texts: ['a', 'b'], input_type: 'search_document' });
    const c = (await cohere.json()) as Json;
    expect(c).toMatchObject({ response_type: 'embeddings_floats', texts: ['a', 'b'] });
    expect(c.embeddings.map((e: number[]) => e.length)).toEqual([1024, 1024]);
  });

  it.each([
    ['amazon.titan-embed-text-v2:0', { inputText: 'x', dimensions: 300 }, 'is not a valid enum value'],
    ['amazon.titan-embed-text-v2:0', { inputText: 'x', input: 'y' }, 'extraneous key [input]'],
    ['amazon.titan-embed-text-v2:0', { texts: ['x'] }, 'extraneous key [texts]'],
    ['cohere.embed-english-v3', { texts: ['x'] }, 'input_type'],
    ['cohere.embed-english-v3', { texts: Array.from({ length: 97 }, () => 'x'), input_type: 'search_query' }, 'less than or equal to 96'],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', { inputText: 'x' }, 'model identifier is invalid'],
  ])('refuses %s with %j as a ValidationException', async (model, body, message) => {
    const r = await invoke(model, body);
    expect(r.status).toBe(400);
    expect(r.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(((await r.json()) as Json).message).toContain(message);
  });

  it('refuses a bad signature', async () => {
    const r = await invoke('amazon.titan-embed-text-v2:0', { inputText: 'x' }, { ...CREDS, secretAccessKey: 'wrong' });
    expect(r.status).toBe(403);
  });
});
