// Two more real clients on POST /v1/embeddings, each used the way its docs show:
// LangChain's OpenAIEmbeddings and the Vercel AI SDK's embedMany over
// @ai-sdk/openai-compatible, against OpenAI-, Gemini- and Bedrock-hosted embedding models.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embedMany } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBedrockMock, startGeminiMock, startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { signup, startGateway, type TestGateway } from './support/gateway.ts';

const KEY = 'sk-embedding-clients-key';
const AWS = { accessKeyId: 'AKIAMOCKEMBEDCLIENT1', secretAccessKey: 'clients/Secret+Key00000000000000000000', region: 'us-east-1' };
const DOCS = ['Oslo is the capital of Norway.', 'Bergen is known for rain.', 'Tromsø lies north of the Arctic Circle.'];

let gw: TestGateway;
let apiKey: string;
const mocks: MockVendor[] = [];

beforeAll(async () => {
  const [openai, gemini, bedrock] = await Promise.all([startOpenAIMock({ apiKey: KEY }), startGeminiMock({ apiKey: KEY }), startBedrockMock(AWS)]);
  mocks.push(openai, gemini, bedrock);
  gw = await startGateway({
    env: {
      OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: KEY,
      GEMINI_BASE_URL: gemini.url, GEMINI_API_KEY: KEY,
      BEDROCK_BASE_URL: bedrock.url, AWS_ACCESS_KEY_ID: AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey, AWS_REGION: AWS.region,
    },
  });
  apiKey = (await signup(gw)).api_key;
});
afterAll(async () => {
  await gw?.close();
  await Promise.all(mocks.map((m) => m.close()));
});

const models = [
  ['text-embedding-3-small', 1536],
  ['gemini-embedding-001', 3072],
  ['amazon.titan-embed-text-v2:0', 1024],
] as const;

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0) / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));

describe.each(models)('%s', (model, dims) => {
  it("LangChain's OpenAIEmbeddings embeds documents and a query", async () => {
    const embeddings = new OpenAIEmbeddings({ model, apiKey, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 });
    const docs = await embeddings.embedDocuments(DOCS);
    const query = await embeddings.embedQuery(DOCS[1]!);
    expect(docs.map((d) => d.length)).toEqual([dims, dims, dims]);
    // The mock's vectors are a function of the text: the query matches its own document.
    expect(cosine(query, docs[1]!)).toBeCloseTo(1, 5);
    expect(cosine(query, docs[0]!)).toBeLessThan(0.5);
  });

  it("the AI SDK's embedMany embeds values and reports usage", async () => {
    const provider = createOpenAICompatible({ name: 'optimizer', baseURL: `${gw.url}/v1`, apiKey });
    const { embeddings, usage } = await embedMany({ model: provider.textEmbeddingModel(model), values: DOCS, maxRetries: 0 });
    expect(embeddings.map((e) => e.length)).toEqual([dims, dims, dims]);
    expect(usage.tokens).toBeGreaterThan(0);
  });
});
