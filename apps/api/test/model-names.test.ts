// A model name cannot leave the vendor's base path: names are identifiers, checked on
// every provider before anything is sent, and percent-encoded where they become a path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isModelId } from '../src/providers/model-id.ts';
import { geminiUrl } from '../src/providers/gemini/api.ts';
import { converseUrl } from '../src/providers/bedrock/api.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';

const KEY = 'platform-key-for-every-vendor-123456';
let vendor: Loopback;
let gw: TestGateway;
let tenant: { api_key: string };

beforeAll(async () => {
  vendor = await startLoopback((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"no such model"}}');
  });
  gw = await startGateway({
    env: {
      GEMINI_BASE_URL: `${vendor.url}/v1beta`,
      GEMINI_API_KEY: KEY,
      AZURE_OPENAI_BASE_URL: `${vendor.url}/openai`,
      AZURE_OPENAI_API_KEY: KEY,
      BEDROCK_BASE_URL: `${vendor.url}`,
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      OPENAI_BASE_URL: `${vendor.url}/v1`,
      OPENAI_API_KEY: KEY,
      UPSTREAM_MAX_RETRIES: '0',
      CIRCUIT_FAILURES: '1000',
    },
  });
  tenant = await signup(gw);
});
afterAll(async () => {
  await gw.close();
  await vendor.close();
});

const post = (path: string, body: Record<string, unknown>) => fetch(`${gw.url}${path}`, { method: 'POST', headers: authed(tenant.api_key), body: JSON.stringify(body) });
const chat = (model: string) => post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });

describe('model names that would leave the base path', () => {
  const escapes = [
    'gemini/tunedModels/../../../admin/x',
    'gemini/tunedModels/%2e%2e/%2e%2e/admin/x',
    'gemini/models/./../x',
    'gemini/x?alt=json',
    'gemini/x#frag',
    'azure-openai/..',
    'azure-openai/.',
    'azure-openai/%2e%2e',
    'bedrock/..',
    'openai/gpt\r\nx-injected: 1',
    'openai/gpt\u0000',
    'gemini//admin',
  ];
  it.each(escapes)('refuses %j with 400 before any vendor is called', async (model) => {
    const before = vendor.seen.length;
    const r = await chat(model);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_request', param: 'model' });
    expect(vendor.seen.length).toBe(before);
  });

  it('refuses them on embeddings too', async () => {
    const before = vendor.seen.length;
    const r = await post('/v1/embeddings', { model: 'gemini/tunedModels/../../../admin/x', input: 'hi' });
    expect(r.status).toBe(400);
    expect(vendor.seen.length).toBe(before);
  });

  it('keeps a well-formed resource name inside the base path', async () => {
    const r = await chat('gemini/tunedModels/my-model-7');
    expect(r.status).toBe(404); // the vendor's answer, mapped
    expect(vendor.seen.at(-1)!.path).toBe('/v1beta/tunedModels/my-model-7:generateContent');
    const az = await chat('azure-openai/my-deployment');
    expect(az.status).toBe(404);
    expect(vendor.seen.at(-1)!.path).toMatch(/^\/openai\/deployments\/my-deployment\/chat\/completions\?api-version=/);
  });
});

describe('what an identifier is', () => {
  it('takes the names vendors use', () => {
    for (const m of ['gpt-4.1-mini', 'models/gemini-2.5-flash', 'tunedModels/x-1', 'llama3.1:8b', 'hf.co/user/repo:Q4_K_M', 'openai/gpt-4o:online', 'accounts/fireworks/models/llama-v3-70b', 'anthropic.claude-3-5-sonnet-20241022-v2:0', 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 'name@version', 'a+b']) {
      expect(isModelId(m), m).toBe(true);
    }
  });
  it('refuses dot segments, empty segments, encodings, queries, spaces and controls', () => {
    for (const m of ['', '.', '..', 'a/../b', 'a/./b', '/a', 'a/', 'a//b', '%2e%2e', 'a?b', 'a#b', 'a b', 'a\nb', 'a\\b', '-a', 'x'.repeat(257)]) {
      expect(isModelId(m), JSON.stringify(m)).toBe(false);
    }
  });
  it('refuses in the URL builders themselves, not only at dispatch', () => {
    expect(() => geminiUrl('http://127.0.0.1:9/v1beta', 'tunedModels/../../admin', false)).toThrow(/not a valid identifier/);
    expect(() => converseUrl({ name: 'bedrock', wire: 'bedrock', baseUrl: 'http://127.0.0.1:9' }, '..', false)).toThrow(/not a valid identifier/);
    expect(converseUrl({ name: 'bedrock', wire: 'bedrock', baseUrl: 'http://127.0.0.1:9' }, 'arn:aws:bedrock:us-east-1:1:x/y', false).pathname).toBe('/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ax%2Fy/converse');
  });
});
