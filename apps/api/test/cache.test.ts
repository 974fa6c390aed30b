// The exact cache and the plan cache: hits cost nothing upstream and say so, never
// cross tenants, never hold an error or a cut-off answer, replay as SSE for streams,
// and their savings add up by source.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIMock } from '@optimizer/mock-providers';
import { authed, signup, testDatabase } from './support/gateway.ts';
import { replicaEnv, spawnGateway } from './support/process.ts';
import { PLATFORM_KEY, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000', UPSTREAM_MAX_RETRIES: '0' } });
  await enableCache(rig.gw.url, rig.tenant.api_key);
});
afterAll(async () => {
  await rig.close();
});
beforeEach(() => rig.vendor.reset());

async function enableCache(url: string, key: string) {
  const r = await fetch(`${url}/v1/settings/routing`, { method: 'PUT', headers: authed(key), body: JSON.stringify({ cache: { exact: true, ttl_seconds: 600 } }) });
  expect(r.status).toBe(200);
}

type Block = { cache_hit: boolean; baseline_cost: number; served_cost: number; actual_cost: number; saving: number };
const body = (text: string, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], ...extra });

const askAs = (key: string, b: Record<string, unknown>) => ask(key, b);

async function ask(key: string, b: Record<string, unknown>, headers: Record<string, string> = {}, url = rig.gw.url) {
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify(b) });
  return { status: r.status, cache: r.headers.get('x-optimizer-cache'), json: (await r.json()) as { choices: { message: { content: string } }[]; optimizer: Block } };
}

describe('the exact cache', () => {
  it('keeps answers at most 30 days: a longer TTL is refused, naming the field', async () => {
    const put = (ttl: number) => fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ cache: { exact: true, ttl_seconds: ttl } }) });
    const tooLong = await put(30 * 24 * 3600 + 1);
    expect(tooLong.status).toBe(422);
    expect(((await tooLong.json()) as { error: { param: string } }).error.param).toBe('cache.ttl_seconds');
    expect((await put(30 * 24 * 3600)).status).toBe(200);
    await enableCache(rig.gw.url, rig.tenant.api_key);
  });


  it('answers a repeated request from cache at no upstream cost, and says so', async () => {
    const first = await ask(rig.tenant.api_key, body('what is 2+2?'));
    const again = await ask(rig.tenant.api_key, body('what is 2+2?'));
    expect(rig.vendor.requests).toHaveLength(1);
    expect(first.json.optimizer.cache_hit).toBe(false);
    expect(again.cache).toBe('hit');
    expect(again.json.choices[0]!.message.content).toBe(first.json.choices[0]!.message.content);
    expect(again.json.optimizer).toMatchObject({ cache_hit: true, served_cost: 0, actual_cost: 0 });
    expect(again.json.optimizer.saving).toBe(again.json.optimizer.baseline_cost);
    expect(again.json.optimizer.baseline_cost).toBe(first.json.optimizer.actual_cost);
  });

  it('skips the cache for Cache-Control: no-cache, and splits on anything that shapes the answer', async () => {
    await ask(rig.tenant.api_key, body('skip me'));
    await ask(rig.tenant.api_key, body('skip me'), { 'cache-control': 'no-cache' });
    await ask(rig.tenant.api_key, body('skip me', { temperature: 0.3 }));
    expect(rig.vendor.requests).toHaveLength(3);
    // but not on fields that do not: user, stream_options
    await ask(rig.tenant.api_key, body('skip me', { user: 'someone-else' }));
    expect(rig.vendor.requests).toHaveLength(3);
  });

  it('never crosses tenants, for identical and near-identical prompts', async () => {
    const other = await signup(rig.gw);
    await enableCache(rig.gw.url, other.api_key);
    await ask(rig.tenant.api_key, body('tenant secret question'));
    const theirs = await ask(other.api_key, body('tenant secret question'));
    const near = await ask(other.api_key, body('tenant secret question?'));
    expect(theirs.json.optimizer.cache_hit).toBe(false);
    expect(near.json.optimizer.cache_hit).toBe(false);
    expect(rig.vendor.requests).toHaveLength(3);
  });

  it('never caches an error or a cut-off answer', async () => {
    await ask(rig.tenant.api_key, body('x', { model: 'error-5xx' }));
    await ask(rig.tenant.api_key, body('x', { model: 'error-5xx' }));
    expect(rig.vendor.requests).toHaveLength(2);
    rig.vendor.script({ content: 'cut', finish_reason: 'length' });
    await ask(rig.tenant.api_key, body('long essay'));
    await ask(rig.tenant.api_key, body('long essay'));
    expect(rig.vendor.requests).toHaveLength(4);
  });

  it('replays a cached answer as valid SSE to the official SDK', async () => {
    await ask(rig.tenant.api_key, body('stream me from cache'));
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'stream me from cache' }], stream: true });
    let text = '';
    let last: Record<string, unknown> = {};
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? '';
      last = c as unknown as Record<string, unknown>;
    }
    expect(text).toContain('mock answer');
    expect(last.optimizer).toMatchObject({ cache_hit: true, actual_cost: 0 });
    expect(rig.vendor.requests).toHaveLength(1);
  });
});

describe('outcomes of cached answers', () => {
  it('are recorded, but never count as evidence for the policy routing chose', async () => {
    const run = (id: string) => body('how long is a piece of string?', { optimizer: { run: { id }, step: { id: 'cached-step' } } });
    await ask(rig.tenant.api_key, run('run-miss'));
    const hit = await ask(rig.tenant.api_key, run('run-hit'));
    expect(hit.cache).toBe('hit');
    const report = (runId: string, score: number) => fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ run_id: runId, step_id: 'cached-step', signals: { score } }) });
    const served = () => rig.gw.services.optimizer.stepStates(rig.tenant.workflow_id).find((st) => st.label === 'cached-step')?.served ?? 0;
    const before = served();
    const r = await report('run-hit', 0);
    expect(r.status).toBe(202);
    expect(((await r.json()) as { calls: string[] }).calls).toHaveLength(1);
    expect(served()).toBe(before);
    expect((await report('run-miss', 1)).status).toBe(202);
    expect(served()).toBe(before + 1);
  });
});

describe('streamed answers', () => {
  const streamed = async (text: string) => {
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], stream: true });
    let out = '';
    let last: Record<string, unknown> = {};
    for await (const c of stream) {
      out += c.choices[0]?.delta?.content ?? '';
      last = c as unknown as Record<string, unknown>;
    }
    return { text: out, optimizer: last.optimizer as Block };
  };

  it('are stored whole once streamed, and answer the same request later, streamed or not', async () => {
    const first = await streamed('stream me into the cache');
    expect(first.optimizer.cache_hit).toBe(false);
    const again = await ask(rig.tenant.api_key, body('stream me into the cache'));
    expect(again.json.optimizer.cache_hit).toBe(true);
    expect(again.json.choices[0]!.message.content).toBe(first.text);
    const replayed = await streamed('stream me into the cache');
    expect(replayed).toMatchObject({ text: first.text, optimizer: { cache_hit: true } });
    expect(rig.vendor.requests).toHaveLength(1);
  });

  it('say a miss in their headers, like JSON answers', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(body('a fresh streamed question', { stream: true })) });
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(r.headers.get('x-optimizer-cache')).toBe('miss');
    expect(await r.text()).toMatch(/data: \[DONE\]\n\n$/);
  });

  it('are not stored when the stream was cut off by the length limit', async () => {
    rig.vendor.script({ content: 'cut short', finish_reason: 'length' });
    await streamed('a stream cut short');
    rig.vendor.reset();
    expect((await ask(rig.tenant.api_key, body('a stream cut short'))).json.optimizer.cache_hit).toBe(false);
  });
});

describe('the plan cache', () => {
  it('serves the opening call of a run from a run that completed cleanly, and drops the plan when a run fails after it', async () => {
    // a tenant without the exact cache: only the plan cache can answer
    const t = await signup(rig.gw);
    const ask = (key: string, b: Record<string, unknown>) => askAs(key, b);
    const start = (runId: string) => body('plan the trip to Oslo', { optimizer: { run: { id: runId, is_start: true }, step: { id: 'plan' } } });
    await ask(t.api_key, start('run-a'));
    // not a plan until the run reports it completed
    expect((await ask(t.api_key, start('run-b'))).json.optimizer.cache_hit).toBe(false);
    const done = await fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ run_id: 'run-a', step_id: 'plan', signals: { run_completed: true } }) });
    expect(done.status).toBe(202);
    const planned = await ask(t.api_key, start('run-c'));
    expect(planned.json.optimizer.cache_hit).toBe(true);
    const calls = (await (await fetch(`${rig.gw.url}/v1/calls?limit=1`, { headers: authed(t.api_key) })).json()) as { data: { saving_source: string }[] };
    expect(calls.data[0]!.saving_source).toBe('trace');
    const savings = (await (await fetch(`${rig.gw.url}/v1/dashboard/savings`, { headers: authed(t.api_key) })).json()) as { by_source: Record<string, number> };
    expect(savings.by_source.trace).toBeGreaterThan(0);
    // run-c fails: its plan is dropped
    await fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ run_id: 'run-c', step_id: 'plan', signals: { run_completed: false } }) });
    expect((await ask(t.api_key, start('run-d'))).json.optimizer.cache_hit).toBe(false);
  });
});

describe('savings by source', () => {
  it('add up to the total and match the sum over the calls', async () => {
    const s = (await (await fetch(`${rig.gw.url}/v1/dashboard/savings`, { headers: authed(rig.tenant.api_key) })).json()) as { saving: number; by_source: Record<string, number> };
    const calls = (await (await fetch(`${rig.gw.url}/v1/calls?limit=500`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { saving: number; saving_source: string | null }[] };
    const bySource = Object.values(s.by_source).reduce((a, b) => a + b, 0);
    const positive = calls.data.filter((c) => c.saving_source !== null).reduce((a, c) => a + c.saving, 0);
    expect(s.by_source.cache).toBeGreaterThan(0);
    expect(bySource).toBeCloseTo(positive, 6);
    expect(s.saving).toBeCloseTo(calls.data.reduce((a, c) => a + c.saving, 0), 6);
  });
});

describe('the exact cache across two API processes', { timeout: 90_000 }, () => {
  it('serves a hit on a second process through the shared Redis', async () => {
    const db = await testDatabase({ force: true });
    const vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
    const shared = replicaEnv(db.url!, vendor.url, PLATFORM_KEY);
    const a = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-a-')) });
    const b = await spawnGateway({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'optimizer-b-')) });
    try {
      const t = await signup({ url: a.url });
      await enableCache(a.url, t.api_key);
      await ask(t.api_key, body('shared across replicas'), {}, a.url);
      let hit = false;
      for (let i = 0; i < 20 && !hit; i++) {
        hit = (await ask(t.api_key, body('shared across replicas'), {}, b.url)).json.optimizer.cache_hit;
        if (!hit) await new Promise((r) => setTimeout(r, 50)); // b learns the settings through a notice
      }
      expect(hit).toBe(true);
      const client = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: t.api_key, maxRetries: 0 });
      const s = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'shared across replicas' }], stream: true });
      let text = '';
      for await (const c of s) text += c.choices[0]?.delta?.content ?? '';
      expect(text).toContain('mock answer');
      expect(vendor.requests).toHaveLength(1);
    } finally {
      a.kill('SIGTERM');
      b.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
      await vendor.close();
      await db.drop();
    }
  });
});
