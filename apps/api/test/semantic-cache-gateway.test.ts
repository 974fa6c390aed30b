// The semantic cache in the gateway: a paraphrase is served from cache (JSON and SSE) to
// the official SDK only where the tenant turned it on, never across tenants, system
// prompts, tools or params; never from an error or a cut-off answer; a request can raise
// the bar, not lower it; the judge's failed checks take it away from a step; entries are
// shared by replicas through Redis and rebuilt from the database after a restart.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIMock } from '@optimizer/mock-providers';
import { authed, signup, testDatabase } from './support/gateway.ts';
import { replicaEnv, spawnGateway } from './support/process.ts';
import { callRecords, PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';
import type { Embedder } from '../src/cache/semantic/index.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const modelDir = join(repoRoot, '..', 'shared', 'models', 'all-MiniLM-L6-v2');
/** Generous: the 2-core test machine runs other suites beside this one. */
const SEMANTIC_ENV = { EMBEDDING_MODEL_DIR: modelDir, SEMANTIC_EMBED_TIMEOUT_MS: '10000', CIRCUIT_FAILURES: '1000', UPSTREAM_MAX_RETRIES: '0' };

type Block = { cache_hit: boolean; baseline_cost: number; served_cost: number; actual_cost: number; exploration_cost: number; saving: number };
type Answer = { status: number; cache: string | null; kind: string | null; json: { choices: { message: { content: string } }[]; optimizer: Block } };

async function setSemantic(url: string, key: string, cache: Record<string, unknown> = { semantic: true, exact: false, ttl_seconds: 600 }) {
  const r = await fetch(`${url}/v1/settings/routing`, { method: 'PUT', headers: authed(key), body: JSON.stringify({ cache }) });
  expect(r.status).toBe(200);
}

async function ask(url: string, key: string, b: Record<string, unknown>): Promise<Answer> {
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body: JSON.stringify(b) });
  return { status: r.status, cache: r.headers.get('x-optimizer-cache'), kind: r.headers.get('x-optimizer-cache-kind'), json: (await r.json()) as Answer['json'] };
}

const q = (text: string, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], ...extra });

describe('the semantic cache in the gateway', () => {
  let rig: Rig;
  /** Asks, then waits until the answer is in the semantic cache (stored in the background). */
  const askAndStore = async (b: Record<string, unknown>, key = rig.tenant.api_key) => {
    const a = await ask(rig.gw.url, key, b);
    await rig.gw.services.semanticCache.settle();
    return a;
  };
  const askNow = (b: Record<string, unknown>, key = rig.tenant.api_key) => ask(rig.gw.url, key, b);

  beforeAll(async () => {
    rig = await startRig({ env: { ...SEMANTIC_ENV, SEMANTIC_CHECK_RATE: '0' } }); // the judge's checks have their own tests below
  });
  afterAll(async () => {
    await rig?.close();
  });
  beforeEach(() => rig.vendor.reset());

  it('costs a tenant without semantic caching nothing: no embedder is ever made', async () => {
    await setSemantic(rig.gw.url, rig.tenant.api_key, { exact: true });
    await askAndStore(q('How do I learn to cook Italian food at home?'));
    const again = await askNow(q('How can I learn to cook Italian food at home?'));
    expect(again.json.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(2);
    expect(rig.gw.services.semanticCache.embedderStarted).toBe(false);
    expect(rig.gw.services.semanticCache.embedderName).toBeNull();
  });

  it('serves a paraphrase from cache to the official SDK, at no upstream cost, and says so', async () => {
    await setSemantic(rig.gw.url, rig.tenant.api_key);
    const first = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the best way to learn Python programming?' }] });
    await rig.gw.services.semanticCache.settle();
    expect(rig.gw.services.semanticCache.embedderName).toBe('onnx-minilm');
    const { data, response } = await rig.client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the best way to learn programming in Python?' }] })
      .withResponse();
    expect(response.headers.get('x-optimizer-cache')).toBe('hit');
    expect(response.headers.get('x-optimizer-cache-kind')).toBe('semantic');
    expect(Number(response.headers.get('x-optimizer-cache-similarity'))).toBeGreaterThan(0.93);
    expect(data.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    const block = (data as unknown as { optimizer: Block }).optimizer;
    const firstBlock = (first as unknown as { optimizer: Block }).optimizer;
    expect(block).toMatchObject({ cache_hit: true, served_cost: 0, actual_cost: 0 });
    expect(block.saving).toBe(firstBlock.actual_cost);
    expect(rig.vendor.requests).toHaveLength(1);
    const [rec] = await callRecords(rig.gw, rig.tenant.account_id);
    expect(rec!.cache_hit).toBe(true);
    expect(rec!.saving_source).toBe('cache');
    expect((rec!.reasons as string[]).join(' ')).toContain('served from the semantic cache');
  });

  it('replays a semantic hit to a stream request as valid SSE', async () => {
    await askAndStore(q('How do I learn to cook Italian food at home?'));
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'How do I learn cooking Italian food at home?' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let last: Record<string, unknown> = {};
    let finish: string | null = null;
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      last = c as unknown as Record<string, unknown>;
    }
    expect(text).toContain('mock answer');
    expect(finish).toBe('stop');
    expect(last.optimizer).toMatchObject({ cache_hit: true, actual_cost: 0 });
    expect(last.usage).toBeTruthy();
    expect(rig.vendor.requests).toHaveLength(1);
  });

  it('never shares an entry between tenants, for identical and near-identical prompts', async () => {
    const other = await signup(rig.gw);
    await setSemantic(rig.gw.url, other.api_key);
    await askAndStore(q('What causes earthquakes?'));
    const same = await askAndStore(q('What causes earthquakes?'), other.api_key);
    const near = await askNow(q('What is the cause of earthquakes?'), other.api_key);
    expect(same.json.optimizer.cache_hit).toBe(false);
    expect(near.json.optimizer.cache_hit).toBe(true); // its own entry, not the first tenant's
    expect(rig.vendor.requests).toHaveLength(2);
    const third = await signup(rig.gw);
    await setSemantic(rig.gw.url, third.api_key);
    expect((await askNow(q('What is the cause of earthquakes?'), third.api_key)).json.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(3);
  });

  it('never hits across a different system prompt, tools or sampling params', async () => {
    const base = (text: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: text }], temperature: 0 });
    await askAndStore(base('How do vaccines work?'));
    expect((await askNow(base('How does a vaccine work?'))).json.optimizer.cache_hit).toBe(true);
    const variants = [
      { ...base('How does a vaccine work?'), messages: [{ role: 'system', content: 'Answer at length.' }, { role: 'user', content: 'How does a vaccine work?' }] },
      { ...base('How does a vaccine work?'), temperature: 0.7 },
      { ...base('How does a vaccine work?'), max_tokens: 50 },
      { ...base('How does a vaccine work?'), response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } } } } } },
      { ...base('How does a vaccine work?'), tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }], tool_choice: 'none' },
      { ...base('How does a vaccine work?'), model: 'gpt-4o' },
    ];
    for (const v of variants) {
      const r = await askNow(v);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.optimizer.cache_hit).toBe(false);
    }
    expect(rig.vendor.requests).toHaveLength(1 + variants.length);
  });

  it('serves a routed (auto) call from the entries of its own step', async () => {
    const routed = (text: string) => ({ model: 'auto', messages: [{ role: 'user', content: text }], optimizer: { step: { id: 'routed-faq' } } });
    const first = await askAndStore(routed('Why is the ocean salty?'));
    expect(first.status).toBe(200);
    const hit = await askNow(routed('Why is the ocean so salty?'));
    expect(hit.kind).toBe('semantic');
    expect(hit.json.optimizer).toMatchObject({ cache_hit: true, actual_cost: 0 });
    // the same question as a pinned call is another scope (model), and another step: no hit
    expect((await askNow(q('Why is the ocean so salty?', { optimizer: { step: { id: 'pinned-faq' } } }))).json.optimizer.cache_hit).toBe(false);
    // the step registry shows the step's semantic-cache checks, and when it lost semantic caching
    const view = async () => {
      const r = await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) });
      return ((await r.json()) as { data: { label: string; fingerprint: string; semantic_cache: { checked: number; disabled: boolean } }[] }).data.find((st) => st.label === 'routed-faq')!;
    };
    const step = await view();
    expect(step.semantic_cache).toMatchObject({ disabled: false });
    rig.gw.services.semanticCache.recordCheck(rig.tenant.account_id, step.fingerprint, false, 'a failed check');
    expect((await view()).semantic_cache).toMatchObject({ checked: step.semantic_cache.checked + 1, disabled: true });
    // the tenant can give it back (its checks start over), durably, and take it away again
    const patch = (b: unknown) => fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps/${step.fingerprint}`, { method: 'PATCH', headers: authed(rig.tenant.api_key), body: JSON.stringify(b) });
    const back = await patch({ semantic_cache: true });
    expect(back.status).toBe(200);
    expect(((await back.json()) as { semantic_cache: unknown }).semantic_cache).toEqual({ checked: 0, failed: 0, disabled: false, reason: null });
    const stored = (await rig.gw.services.db.em().getConnection().execute('select disabled, checked from semantic_cache_steps where account_id = ? and step = ?', [rig.tenant.account_id, step.fingerprint])) as { disabled: boolean; checked: number }[];
    expect(stored[0]).toMatchObject({ disabled: false, checked: 0 });
    expect((await askNow(routed('Why is the ocean so salty?'))).kind).toBe('semantic');
    expect((await patch({ semantic_cache: false })).status).toBe(200);
    expect((await view()).semantic_cache).toMatchObject({ disabled: true, reason: 'turned off by the tenant' });
    expect((await patch({})).status).toBe(422);
    expect((await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps/no-such-step`, { method: 'PATCH', headers: authed(rig.tenant.api_key), body: JSON.stringify({ semantic_cache: true }) })).status).toBe(404);
  });

  it('only answers single-turn calls, unless the call opts its step in', async () => {
    const history = [
      { role: 'user', content: 'I am planning a trip.' },
      { role: 'assistant', content: 'Great, where to?' },
    ];
    const turn = (text: string, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [...history, { role: 'user', content: text }], ...extra });
    await askAndStore(turn('What causes earthquakes?'));
    expect((await askNow(turn('What is the cause of earthquakes?'))).json.optimizer.cache_hit).toBe(false);
    const optIn = { optimizer: { cache: { semantic: true } } };
    await askAndStore(turn('What causes earthquakes?', optIn));
    expect((await askNow(turn('What is the cause of earthquakes?', optIn))).json.optimizer.cache_hit).toBe(true);
    // a different history is another scope
    const otherHistory = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'I am moving house.' }, history[1], { role: 'user', content: 'What is the cause of earthquakes?' }], ...optIn };
    expect((await askNow(otherHistory)).json.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(4);
  });

  it('never stores an error or a cut-off answer', async () => {
    const failing = await askAndStore(q('Why is the ocean salty?', { model: 'error-5xx' }));
    expect(failing.status).toBeGreaterThanOrEqual(500);
    expect((await askNow(q('Why is the ocean so salty?', { model: 'error-5xx' }))).json.optimizer?.cache_hit ?? false).toBe(false);
    expect(rig.vendor.requests).toHaveLength(2);
    rig.vendor.script({ content: 'The ocean is salty because', finish_reason: 'length' });
    await askAndStore(q('Why is the ocean salty?'));
    rig.vendor.reset();
    const after = await askNow(q('Why is the ocean so salty?'));
    expect(after.json.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(1);
  });

  it('lets a request raise the similarity bar but never lower it', async () => {
    await askAndStore(q('What causes volcanoes to erupt?'));
    const strict = await askNow(q('What is the cause of volcanoes erupting?', { optimizer: { cache: { semantic_threshold: 0.999 } } }));
    expect(strict.json.optimizer.cache_hit).toBe(false);
    const plain = await askNow(q('What is the cause of volcanoes erupting?'));
    expect(plain.json.optimizer.cache_hit).toBe(true);
    // about 0.92 similar to "What causes earthquakes?": under the default bar, and asking for 0.5 does not lower it
    const lowered = await askNow(q('What makes earthquakes happen?', { optimizer: { cache: { semantic_threshold: 0.5 } } }));
    expect(lowered.json.optimizer.cache_hit).toBe(false);
  });

  it('stops serving an entry past its TTL, and sweeps it from the database', async () => {
    const t = await signup(rig.gw);
    await setSemantic(rig.gw.url, t.api_key, { semantic: true, ttl_seconds: 1 });
    await askAndStore(q('How do vaccines work?'), t.api_key);
    expect((await askNow(q('How does a vaccine work?'), t.api_key)).json.optimizer.cache_hit).toBe(true);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await askNow(q('How does a vaccine work?'), t.api_key)).json.optimizer.cache_hit).toBe(false);
    await rig.gw.services.semanticCache.settle();
    await rig.gw.services.semanticCache.sweep(Date.now() + 2_000);
    const rows = (await rig.gw.services.db.em().getConnection().execute('select count(*)::int as n from semantic_cache_entries where account_id = ?', [t.account_id])) as { n: number }[];
    expect(rows[0]!.n).toBe(0);
  });

  it('is skipped by Cache-Control: no-cache and by an opt-out annotation', async () => {
    await askAndStore(q('How do vaccines work?'));
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key, { 'cache-control': 'no-cache' }), body: JSON.stringify(q('How does a vaccine work?')) });
    expect(((await r.json()) as Answer['json']).optimizer.cache_hit).toBe(false);
    const optedOut = await askNow(q('How does a vaccine work?', { optimizer: { cache: { semantic: false } } }));
    expect(optedOut.json.optimizer.cache_hit).toBe(false);
    expect(optedOut.cache).toBeNull();
    const served = await askNow(q('How does a vaccine work?'));
    expect(served.json.optimizer.cache_hit).toBe(true);
    expect(served.kind).toBe('semantic');
  });
});

describe('the judge on semantic hits', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { ...SEMANTIC_ENV, SEMANTIC_CHECK_RATE: '1' } });
    await setSemantic(rig.gw.url, rig.tenant.api_key);
  });
  afterAll(async () => {
    await rig?.close();
  });

  const stepQ = (step: string, text: string) => q(text, { optimizer: { step: { id: step } } });

  it('serves a hit the judge passes, with the check as exploration cost', async () => {
    await ask(rig.gw.url, rig.tenant.api_key, stepQ('faq', 'How do vaccines work?'));
    await rig.gw.services.semanticCache.settle();
    rig.vendor.reset();
    rig.vendor.script({ content: '{"score": 1, "reason": "answers it"}' });
    const hit = await ask(rig.gw.url, rig.tenant.api_key, stepQ('faq', 'How does a vaccine work?'));
    expect(hit.json.optimizer.cache_hit).toBe(true);
    expect(hit.json.optimizer.exploration_cost).toBeGreaterThan(0);
    expect(hit.json.optimizer.saving).toBeCloseTo(hit.json.optimizer.baseline_cost - hit.json.optimizer.exploration_cost, 9);
    expect(rig.vendor.requests).toHaveLength(1); // the judge alone
    expect(rig.vendor.requests[0]!.body.messages[0].content).toContain('strict grader');
  });

  it('answers upstream when the judge fails a hit, and takes semantic caching away from that step, durably', async () => {
    rig.vendor.reset();
    await ask(rig.gw.url, rig.tenant.api_key, stepQ('lookup', 'What causes earthquakes?'));
    await rig.gw.services.semanticCache.settle();
    rig.vendor.script({ content: '{"score": 0, "reason": "another question"}' });
    const failed = await ask(rig.gw.url, rig.tenant.api_key, stepQ('lookup', 'What is the cause of earthquakes?'));
    expect(failed.json.optimizer.cache_hit).toBe(false);
    expect(failed.json.optimizer.exploration_cost).toBeGreaterThan(0);
    expect(rig.vendor.requests).toHaveLength(3); // first answer, judge, upstream answer
    await rig.gw.services.semanticCache.settle();
    const off = await ask(rig.gw.url, rig.tenant.api_key, stepQ('lookup', 'What is the cause of earthquakes?'));
    expect(off.json.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(4); // no judge call: no lookup at all
    const [rec] = await callRecords(rig.gw, rig.tenant.account_id);
    expect((rec!.reasons as string[]).join(' ')).toContain('semantic cache off for this step');
    const rows = (await rig.gw.services.db.em().getConnection().execute('select step, checked, failed, disabled from semantic_cache_steps where account_id = ?', [rig.tenant.account_id])) as { checked: number; failed: number; disabled: boolean }[];
    expect(rows.find((r) => r.disabled)).toMatchObject({ checked: 1, failed: 1, disabled: true });
    // the other step keeps its semantic cache
    rig.vendor.script({ content: '{"score": 1, "reason": "fine"}' });
    expect((await ask(rig.gw.url, rig.tenant.api_key, stepQ('faq', 'How does a vaccine work?'))).json.optimizer.cache_hit).toBe(true);
  });
});

describe('a slow or failing embedder', () => {
  let rig: Rig;
  let made = 0;
  let mode: 'hang' | 'fail' = 'hang';
  const embedder: Embedder = {
    dims: 384,
    name: 'onnx-minilm',
    source: 'test',
    embed: () => (mode === 'fail' ? Promise.reject(new Error('model crashed')) : new Promise<Float32Array[]>(() => undefined)),
    close: async () => undefined,
  };
  beforeAll(async () => {
    rig = await startRig({
      env: { SEMANTIC_EMBED_TIMEOUT_MS: '50', SEMANTIC_CHECK_RATE: '0' },
      hooks: {
        createEmbedder: async () => {
          made++;
          return embedder;
        },
      },
    });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('is never made for a tenant without semantic caching', async () => {
    await ask(rig.gw.url, rig.tenant.api_key, q('How do vaccines work?'));
    expect(made).toBe(0);
  });

  it('never fails a call: a hanging or failing embedding is a miss, answered upstream', async () => {
    await setSemantic(rig.gw.url, rig.tenant.api_key);
    await ask(rig.gw.url, rig.tenant.api_key, q('How do vaccines work?')); // makes the embedder
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    const hung = await ask(rig.gw.url, rig.tenant.api_key, q('How does a vaccine work?'));
    expect(hung.status).toBe(200);
    expect(hung.json.optimizer.cache_hit).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2_000);
    mode = 'fail';
    const failed = await ask(rig.gw.url, rig.tenant.api_key, q('How does a vaccine work?'));
    expect(failed.status).toBe(200);
    expect(failed.json.optimizer.cache_hit).toBe(false);
    const [last, previous] = await callRecords(rig.gw, rig.tenant.account_id);
    expect((last!.reasons as string[]).join(' ')).toContain('semantic cache missed: embedding failed');
    expect((previous!.reasons as string[]).join(' ')).toContain('semantic cache missed: embedding took over 50 ms');
    expect(made).toBe(1);
  });
});

describe('the semantic cache across API processes', { timeout: 120_000 }, () => {
  it('serves a hit on a second process through the shared Redis, and from the database after a restart', async () => {
    const db = await testDatabase({ force: true });
    const vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
    const shared = replicaEnv(db.url!, vendor.url, PLATFORM_KEY, { EMBEDDING_MODEL_DIR: modelDir, SEMANTIC_EMBED_TIMEOUT_MS: '10000', SEMANTIC_CHECK_RATE: '0' });
    const spawned = [await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-a-')) }), await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-b-')) })];
    const [a, b] = spawned as [(typeof spawned)[0], (typeof spawned)[0]];
    const until = async (fn: () => Promise<boolean>) => {
      for (let i = 0; i < 300; i++) {
        if (await fn()) return true;
        await new Promise((r) => setTimeout(r, 100));
      }
      return false;
    };
    try {
      const t = await signup({ url: a.url });
      await setSemantic(a.url, t.api_key);
      // b starts using the tenant's semantic cache (and loads its empty index) before a stores anything
      expect(await until(async () => (await ask(b.url, t.api_key, q('Why is the sky blue?'))).status === 200 && b.output().includes('tenant index rebuilt'))).toBe(true);
      await ask(a.url, t.api_key, q('What is the best way to learn Python programming?'));
      const client = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: t.api_key, maxRetries: 0 });
      // the entry reaches b by a notice, not by a reload: b's index was already built
      expect(
        await until(async () => {
          const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the best way to learn programming in Python?' }] }).withResponse();
          return r.response.headers.get('x-optimizer-cache-kind') === 'semantic';
        }),
      ).toBe(true);
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the best way to learn programming in Python?' }], stream: true });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
      expect(text).toContain('mock answer');

      // restart: a new process rebuilds the index from the database
      for (const p of spawned) p.kill('SIGTERM');
      await Promise.all(spawned.map((p) => p.exited));
      const c = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-c-')) });
      spawned.push(c);
      expect(await until(async () => (await ask(c.url, t.api_key, q('Why is the sky blue?'))).status === 200 && c.output().includes('tenant index rebuilt'))).toBe(true);
      const rebuilt = await ask(c.url, t.api_key, q('What is the best way to learn programming in Python?'));
      expect(rebuilt.json.optimizer.cache_hit).toBe(true);
      expect(rebuilt.kind).toBe('semantic');
    } finally {
      for (const p of spawned) p.kill('SIGTERM');
      await Promise.all(spawned.map((p) => p.exited));
      await vendor.close();
      await db.drop();
    }
  });
});
