// POST /v1/embeddings through the gateway with the official openai SDK, for every vendor
// that embeds, each against its mock speaking the vendor's real wire format: floats and
// base64, usage and cost (in the optimizer block, /v1/calls and /v1/activity), the key
// order (x-provider-key, stored key, platform key), retries, and the errors.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startBedrockMock, startGeminiMock, startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { countTokens } from '../src/pipeline/tokens.ts';

const KEY = 'sk-embeddings-platform-key';
const AWS = { accessKeyId: 'AKIAMOCKEMBEDDINGS01', secretAccessKey: 'embeddings/Secret+Key0000000000000000', region: 'us-east-1' };
/** Tokens the vendors that count them are scripted to report, so costs are well above a micro-dollar. */
const SCRIPTED_TOKENS = 123_456;
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog near the river bank. '.repeat(400);

interface Vendor {
  provider: string;
  /** The model a client names. */
  model: string;
  /** Catalog price per million input tokens, or null when the model is unpriced. */
  price: number | null;
  start(): Promise<MockVendor>;
  env(url: string): Record<string, string>;
  /** The vendor reports its own token count (else the gateway estimates it). */
  reportsTokens: boolean;
  /** Vendor calls for `n` inputs. */
  calls(n: number): number;
  /** The path the embedding call went to. */
  path: RegExp;
  /** Reads the texts the vendor received from its requests. */
  texts(bodies: any[]): string[];
  /** The key that makes the vendor answer 401/403, for x-provider-key; null when it takes no key. */
  badKey: string | null;
  faultModel(fault: string): string;
}

const openAITexts = (bodies: any[]) => bodies.flatMap((b) => (typeof b.input === 'string' ? [b.input] : b.input));
const openAIVendor = (provider: string, model: string, price: number | null, dialect?: 'mistral' | 'azure', keyed = true): Vendor => ({
  provider,
  model,
  price,
  start: () => startOpenAIMock({ ...(keyed ? { apiKey: KEY } : {}), ...(dialect ? { dialect } : {}) }),
  env: (url) => {
    const name = provider.toUpperCase().replace('-', '_');
    return { [`${name}_BASE_URL`]: url, ...(keyed ? { [`${name}_API_KEY`]: KEY } : {}) };
  },
  reportsTokens: true,
  calls: () => 1,
  path: dialect === 'azure' ? /^\/openai\/deployments\/[^/]+\/embeddings$/ : /^\/v1\/embeddings$/,
  texts: openAITexts,
  badKey: keyed ? 'sk-wrong-key-0000' : null,
  faultModel: (f) => (provider === 'openai' ? f : `${provider}/${f}`),
});

const vendors: Vendor[] = [
  openAIVendor('openai', 'text-embedding-3-small', 0.02),
  openAIVendor('azure-openai', 'azure-openai/text-embedding-3-small', null, 'azure'),
  openAIVendor('mistral', 'mistral-embed', 0.1, 'mistral'),
  openAIVendor('together', 'BAAI/bge-base-en-v1.5', 0.008),
  openAIVendor('fireworks', 'nomic-ai/nomic-embed-text-v1.5', 0.008),
  openAIVendor('vllm', 'vllm/intfloat/e5-mistral-7b-instruct', null),
  openAIVendor('openrouter', 'openrouter/openai/text-embedding-3-small', null),
  openAIVendor('ollama', 'ollama/nomic-embed-text', null, undefined, false),
  {
    provider: 'gemini',
    model: 'gemini-embedding-001',
    price: 0.15,
    start: () => startGeminiMock({ apiKey: KEY }),
    env: (url) => ({ GEMINI_BASE_URL: url, GEMINI_API_KEY: KEY }),
    reportsTokens: false,
    calls: () => 1,
    path: /^\/v1beta\/models\/[^/:]+:(embedContent|batchEmbedContents)$/,
    texts: (bodies) => bodies.flatMap((b) => (b.requests ?? [b]).map((r: any) => r.content.parts.map((p: any) => p.text).join(' '))),
    badKey: 'wrong-gemini-key',
    faultModel: (f) => `gemini/${f}`,
  },
  {
    provider: 'bedrock',
    model: 'amazon.titan-embed-text-v2:0',
    price: 0.02,
    start: () => startBedrockMock(AWS),
    env: (url) => ({ BEDROCK_BASE_URL: url, AWS_ACCESS_KEY_ID: AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey, AWS_REGION: AWS.region }),
    reportsTokens: true,
    calls: (n) => n, // Titan embeds one text a call
    path: /^\/model\/amazon\.titan-embed-text-v2%3A[^/]+\/invoke$/,
    texts: (bodies) => bodies.map((b) => b.inputText),
    badKey: `${AWS.accessKeyId}:not-the-secret`,
    // The mock reads a fault from the version slot of a real model id (the body's shape follows the id).
    faultModel: (f) => `bedrock/amazon.titan-embed-text-v2:${f}`,
  },
];

let gw: TestGateway;
let apiKey: string;
let accountId: string;
let client: OpenAI;
const mocks = new Map<string, MockVendor>();

async function get(path: string, key = apiKey): Promise<any> {
  const r = await fetch(`${gw.url}${path}`, { headers: authed(key) });
  expect(r.status).toBe(200);
  return r.json();
}

const microsOf = (price: number | null, tokens: number) => (price === null ? 0 : Math.round(tokens * price) / 1e6);

beforeAll(async () => {
  const env: Record<string, string> = { UPSTREAM_MAX_RETRIES: '1', AZURE_OPENAI_API_VERSION: '2024-10-21' };
  for (const v of vendors) {
    const m = await v.start();
    mocks.set(v.provider, m);
    Object.assign(env, v.env(m.url));
  }
  gw = await startGateway({ env });
  const t = await signup(gw);
  apiKey = t.api_key;
  accountId = t.account_id;
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([...mocks.values()].map((m) => m.close()));
});

beforeEach(() => {
  for (const m of mocks.values()) m.reset();
});

describe.each(vendors.map((v) => [v.provider, v] as const))('%s', (_name, v) => {
  const mock = () => mocks.get(v.provider)!;
  const embeddingCalls = () => mock().requests.filter((r) => v.path.test(r.path));

  it('embeds one text as floats, in the vendor wire format, metered at the catalog price', async () => {
    mock().script({ usage: { prompt_tokens: SCRIPTED_TOKENS, completion_tokens: 0 } });
    const r = await client.embeddings.create({ model: v.model, input: LONG_TEXT, encoding_format: 'float' });
    expect(r.object).toBe('list');
    expect(r.data).toHaveLength(1);
    expect(r.data[0]!.object).toBe('embedding');
    expect(r.data[0]!.index).toBe(0);
    expect(r.data[0]!.embedding.length).toBeGreaterThan(0);
    expect(r.data[0]!.embedding.every((x) => typeof x === 'number')).toBe(true);

    const calls = embeddingCalls();
    expect(calls).toHaveLength(1);
    expect(v.texts(calls.map((c) => c.body))).toEqual([LONG_TEXT]);

    const tokens = v.reportsTokens ? SCRIPTED_TOKENS : countTokens(LONG_TEXT);
    expect(r.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    const optimizer = (r as unknown as { optimizer: Record<string, number> }).optimizer;
    const cost = microsOf(v.price, tokens);
    if (v.price !== null) expect(cost).toBeGreaterThan(0);
    expect(optimizer).toMatchObject({ cache_hit: false, served_cost: cost, actual_cost: cost, baseline_cost: cost, saving: 0 });

    const { data: listed } = await get('/v1/calls?limit=1');
    expect(listed[0]).toMatchObject({
      provider: v.provider,
      status: 200,
      stream: false,
      usage: { prompt_tokens: tokens, completion_tokens: 0, estimated: !v.reportsTokens },
      cost: { actual: cost, served: cost },
    });
    const { data: activity } = await get('/v1/activity?limit=1');
    expect(activity[0]).toMatchObject({ call_id: listed[0].id, provider: v.provider, outcome: 'ok', prompt_tokens: tokens, cost });
  });

  it('embeds a list in order; the SDK default (base64) decodes to the same float32 vectors', async () => {
    const inputs = ['first text', 'second text', 'third text'];
    const floats = await client.embeddings.create({ model: v.model, input: inputs, encoding_format: 'float' });
    const raw = await client.embeddings.create({ model: v.model, input: inputs, encoding_format: 'base64' });
    const decoded = await client.embeddings.create({ model: v.model, input: inputs }); // the SDK asks for base64 and decodes it
    expect(floats.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(new Set(floats.data.map((d) => JSON.stringify(d.embedding))).size).toBe(3);
    for (const [i, d] of decoded.data.entries()) {
      expect(d.embedding).toEqual(floats.data[i]!.embedding.map((x) => Math.fround(x)));
      expect(typeof raw.data[i]!.embedding).toBe('string');
      const bytes = Buffer.from(raw.data[i]!.embedding as unknown as string, 'base64');
      expect(bytes.length).toBe(floats.data[i]!.embedding.length * 4);
    }
    expect(embeddingCalls()).toHaveLength(3 * v.calls(3));
    expect(v.texts(embeddingCalls().slice(0, v.calls(3)).map((c) => c.body)).sort()).toEqual([...inputs].sort());
  });

  it('passes a vendor 429 on with its Retry-After, after one retry that honoured it', async () => {
    const started = Date.now();
    const err = await client.embeddings.create({ model: v.faultModel('rate-limited'), input: 'hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.headers.get('retry-after')).toBe('1');
    expect((e.error as { code?: string }).code).toBe('upstream_rate_limited');
    expect(embeddingCalls()).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const { data: listed } = await get('/v1/calls?limit=1');
    expect(listed[0]).toMatchObject({ status: 429, error_code: 'upstream_rate_limited', cost: { actual: 0 } });
  });

  // Ollama takes no key, so there is no key for it to refuse.
  if (v.badKey !== null) it('answers 401 when the vendor refuses the x-provider-key', async () => {
    const err = await client.embeddings.create({ model: v.model, input: 'hello' }, { headers: { 'x-provider-key': v.badKey! } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(((err as InstanceType<typeof OpenAI.APIError>).error as { code?: string }).code).toBe('upstream_auth');
    expect(embeddingCalls()).toHaveLength(1);
  });
});

describe('embeddings: routing, keys and refusals', () => {
  const openai = () => mocks.get('openai')!;

  it('answers 404 for a model the vendor does not know', async () => {
    const err = await client.embeddings.create({ model: 'text-embedding-nope', input: 'hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(((err as InstanceType<typeof OpenAI.APIError>).error as { code?: string }).code).toBe('upstream_not_found');
  });

  it('refuses a chat model with a clear 400, and chat completions refuse an embedding model', async () => {
    const err = await client.embeddings.create({ model: 'gpt-4o-mini', input: 'hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(((err as InstanceType<typeof OpenAI.APIError>).error as { code?: string }).code).toBe('not_embedding_model');
    const routed = await client.embeddings.create({ model: 'auto', input: 'hello' }).catch((e: unknown) => e);
    expect(((routed as InstanceType<typeof OpenAI.APIError>).error as { code?: string }).code).toBe('not_embedding_model');
    const chat = await client.chat.completions.create({ model: 'text-embedding-3-small', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect(openai().requests).toHaveLength(0);
  });

  it.each([['anthropic/voyage-3'], ['groq/nomic-embed-text'], ['deepseek/deepseek-embed'], ['xai/v1-embed']])('refuses %s: that vendor has no embeddings', async (model) => {
    const err = await client.embeddings.create({ model, input: 'hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(((err as InstanceType<typeof OpenAI.APIError>).error as { code?: string }).code).toMatch(/^(embeddings_unsupported|provider_unavailable)$/);
  });

  it('sends token-id arrays to a vendor that reads them, and refuses them with 400 where it does not', async () => {
    const r = await client.embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3], [4, 5]], encoding_format: 'float' });
    expect(r.data).toHaveLength(2);
    expect(openai().requests.at(-1)!.body.input).toEqual([[1, 2, 3], [4, 5]]);
    for (const model of ['gemini-embedding-001', 'mistral-embed', 'amazon.titan-embed-text-v2:0']) {
      const err = await client.embeddings.create({ model, input: [1, 2, 3] }).catch((e: unknown) => e);
      expect(err, model).toBeInstanceOf(OpenAI.BadRequestError);
    }
    expect(mocks.get('gemini')!.requests).toHaveLength(0);
    expect(mocks.get('mistral')!.requests).toHaveLength(0);
    expect(mocks.get('bedrock')!.requests).toHaveLength(0);
  });

  it('maps dimensions to each vendor and refuses sizes the vendor cannot make', async () => {
    const small = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello', dimensions: 256, encoding_format: 'float' });
    expect(small.data[0]!.embedding).toHaveLength(256);
    expect(openai().requests.at(-1)!.body).toEqual({ model: 'text-embedding-3-small', input: ['hello'], dimensions: 256 });
    const gemini = await client.embeddings.create({ model: 'gemini-embedding-001', input: 'hello', dimensions: 768, encoding_format: 'float' });
    expect(gemini.data[0]!.embedding).toHaveLength(768);
    expect(mocks.get('gemini')!.requests.at(-1)!.body.outputDimensionality).toBe(768);
    const titan = await client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: 'hello', dimensions: 512, encoding_format: 'float' });
    expect(titan.data[0]!.embedding).toHaveLength(512);
    const codestral = await client.embeddings.create({ model: 'codestral-embed', input: 'hello', dimensions: 128, encoding_format: 'float' });
    expect(codestral.data[0]!.embedding).toHaveLength(128);
    expect(mocks.get('mistral')!.requests.at(-1)!.body).toEqual({ model: 'codestral-embed', input: ['hello'], output_dimension: 128 });

    const refused = await client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: 'hello', dimensions: 300 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    const together = await client.embeddings.create({ model: 'BAAI/bge-base-en-v1.5', input: 'hello', dimensions: 128 }).catch((e: unknown) => e);
    expect(together).toBeInstanceOf(OpenAI.BadRequestError);
    // The vendor's own refusal comes back as a 400 too: ada-002 has a fixed size.
    const ada = await client.embeddings.create({ model: 'text-embedding-ada-002', input: 'hello', dimensions: 128 }).catch((e: unknown) => e);
    expect(ada).toBeInstanceOf(OpenAI.BadRequestError);
    expect(((ada as InstanceType<typeof OpenAI.APIError>).error as { code?: string }).code).toBe('upstream_bad_request');
  });

  it('splits a Gemini list into batches of 100 and Cohere on Bedrock into batches of 96', async () => {
    const texts = Array.from({ length: 150 }, (_, i) => `text number ${i}`);
    const g = await client.embeddings.create({ model: 'gemini-embedding-001', input: texts, encoding_format: 'float' });
    expect(g.data).toHaveLength(150);
    const gBodies = mocks.get('gemini')!.requests.map((r) => r.body);
    expect(gBodies.map((b) => b.requests.length)).toEqual([100, 50]);
    expect(gBodies[0].requests[0]).toEqual({ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'text number 0' }] } });

    mocks.get('bedrock')!.script({ usage: { prompt_tokens: 1000, completion_tokens: 0 } });
    const c = await client.embeddings.create({ model: 'cohere.embed-english-v3', input: texts, encoding_format: 'float' });
    expect(c.data).toHaveLength(150);
    const cBodies = mocks.get('bedrock')!.requests.map((r) => r.body);
    expect(cBodies.map((b) => b.texts.length)).toEqual([96, 54]);
    expect(cBodies[0].input_type).toBe('search_document');
    expect(c.usage.prompt_tokens).toBe(2000); // read from each call's x-amzn-bedrock-input-token-count
    expect((c as unknown as { optimizer: { actual_cost: number } }).optimizer.actual_cost).toBe(microsOf(0.1, 2000));
  });

  it('embeds a Titan list one text a call, a few calls at a time, and keeps the input order', async () => {
    mocks.get('bedrock')!.script({ usage: { prompt_tokens: 7, completion_tokens: 0 } });
    const texts = Array.from({ length: 20 }, (_, i) => `titan text ${i}`);
    const r = await client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: texts, encoding_format: 'float' });
    const one = await client.embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: 'titan text 13', encoding_format: 'float' });
    expect(r.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    expect(r.data[13]!.embedding).toEqual(one.data[0]!.embedding);
    expect(r.usage.prompt_tokens).toBe(20 * 7);
    expect(mocks.get('bedrock')!.requests.map((q) => q.body.inputText).sort()).toEqual([...texts, 'titan text 13'].sort());
  });

  it('uses the tenant stored key over the platform key, and x-provider-key over both', async () => {
    const other = await signup(gw, 'Beta');
    const put = await fetch(`${gw.url}/v1/settings/provider-keys/openai`, { method: 'PUT', headers: authed(other.api_key), body: JSON.stringify({ key: 'sk-stored-but-wrong' }) });
    expect(put.status).toBe(200);
    const c2 = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: other.api_key, maxRetries: 0 });
    const err = await c2.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(openai().requests.at(-1)!.headers.authorization).toBe('Bearer sk-stored-but-wrong');
    const ok = await c2.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }, { headers: { 'x-provider-key': KEY } });
    expect(ok.data).toHaveLength(1);
  });

  it('retries a flaky vendor before any answer: one call metered, every attempt in activity', async () => {
    const r = await client.embeddings.create({ model: 'flaky', input: 'hello', encoding_format: 'float' });
    expect(r.data).toHaveLength(1);
    expect(openai().requests).toHaveLength(2);
    const { data: listed } = await get('/v1/calls?limit=1');
    expect(listed[0]).toMatchObject({ status: 200, model: 'flaky' });
    const { data: activity } = await get('/v1/activity?limit=2');
    expect(activity.filter((a: { call_id: string }) => a.call_id === listed[0].id).map((a: { outcome: string }) => a.outcome).sort()).toEqual(['error', 'ok']);
  });

  it('validates the request body like OpenAI, before any vendor call', async () => {
    for (const body of [{ model: 'text-embedding-3-small' }, { model: 'text-embedding-3-small', input: '' }, { model: 'text-embedding-3-small', input: [] }, { model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' }, { model: 'text-embedding-3-small', input: 'x', surprise: 1 }]) {
      const r = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: authed(apiKey), body: JSON.stringify(body) });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    const noAuth = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }) });
    expect(noAuth.status).toBe(401);
    expect(openai().requests).toHaveLength(0);
  });

  it('lists the embedding models in GET /v1/models', async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['text-embedding-3-small', 'text-embedding-3-large', 'gemini-embedding-001', 'mistral-embed', 'amazon.titan-embed-text-v2:0']));
  });

  it('never routes model auto to an embedding model', async () => {
    const s = gw.services;
    const { defaultBaseline } = await import('../src/pipeline/route.ts');
    expect(defaultBaseline(accountId, s)?.output_modalities).toContain('text');
  });
});
