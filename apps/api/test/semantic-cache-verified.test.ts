// The semantic cache under a tenant's error bound (`cache.semantic_error_bound`): a step serves
// a would-be hit only once its verified record supports the bound — before that the call goes
// upstream and its answer is compared with the cached one — a step whose upstream answers
// disagree never serves, a streamed call is verified as a plain one, and the dashboard's steps view and /metrics report the bound and the
// observed verified error. Against the official SDK's wire format, a mock vendor, PostgreSQL and Redis.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const modelDir = join(repoRoot, '..', 'shared', 'models', 'all-MiniLM-L6-v2');
const SEMANTIC_ENV = { EMBEDDING_MODEL_DIR: modelDir, SEMANTIC_EMBED_TIMEOUT_MS: '10000', CIRCUIT_FAILURES: '1000', UPSTREAM_MAX_RETRIES: '0', SEMANTIC_CHECK_RATE: '0' };

type Verification = { bound: number; threshold: number | null; verified: number; verified_wrong: number; served_checked: number; observed_error: number | null };

describe('the semantic cache with an error bound', () => {
  let rig: Rig;

  beforeAll(async () => {
    rig = await startRig({ env: SEMANTIC_ENV });
  });
  afterAll(async () => {
    await rig?.close();
  });
  beforeEach(() => rig.vendor.reset());

  const setCache = async (cache: Record<string, unknown>) => {
    const r = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ cache }) });
    expect(r.status).toBe(200);
    return (await r.json()) as { cache: Record<string, unknown> };
  };
  const ask = async (text: string, step: string) => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(rig.tenant.api_key),
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: text }], optimizer: { step: { id: step } } }),
    });
    expect(r.status).toBe(200);
    await r.json();
    await rig.gw.services.semanticCache.settle();
    return r.headers.get('x-optimizer-cache-kind');
  };
  const verification = async (label: string): Promise<Verification | null> => {
    const r = await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) });
    const steps = ((await r.json()) as { data: { label: string; semantic_cache: { verification?: Verification | null } }[] }).data;
    return steps.find((s) => s.label === label)?.semantic_cache.verification ?? null;
  };
  const metric = async (line: string) => {
    const text = await (await fetch(`${rig.gw.url}/metrics`)).text();
    const found = text.split('\n').find((l) => l.startsWith(`${line} `));
    return found === undefined ? undefined : Number(found.slice(line.length + 1));
  };

  it('is a setting with no verification by default, and refuses a bound outside (0, 0.5]', async () => {
    const view = await setCache({ semantic: true, exact: false });
    expect(view.cache).toMatchObject({ semantic: true, semantic_error_bound: null });
    for (const bad of [0, -0.1, 0.6, 'x']) {
      const r = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ cache: { semantic: true, semantic_error_bound: bad } }) });
      expect(r.status).toBe(422);
    }
  });

  it('serves a step only once its verified record supports the bound, and reports it', async () => {
    await setCache({ semantic: true, exact: false, ttl_seconds: 600, semantic_error_bound: 0.2 });
    rig.vendor.script({ content: 'Paris is the capital of France.' });
    expect(await ask('What is the capital city of France?', 'capital')).toBeNull(); // stored
    const before = rig.vendor.requests.length;
    let firstHit = -1;
    for (let i = 0; i < 40 && firstHit < 0; i++) if ((await ask('What is the capital city of France?', 'capital')) === 'semantic') firstHit = i;
    // at a 20 % bound, 95 % confidence: 11 agreeing checks before the first hit is served
    expect(firstHit).toBeGreaterThanOrEqual(11);
    expect(rig.vendor.requests.length - before).toBe(firstHit); // each verified would-be hit went upstream
    const v = await verification('capital');
    expect(v).toMatchObject({ bound: 0.2, verified_wrong: 0 });
    expect(v!.verified).toBeGreaterThanOrEqual(11);
    expect(v!.threshold).not.toBeNull();
    expect(await metric('optimizer_semantic_cache_error_bound')).toBe(0.2);
    expect(await metric('optimizer_semantic_cache_verified_total{range="unproven",result="agree"}')).toBeGreaterThanOrEqual(11);
  });

  it('verifies a streamed call as it does a plain one', async () => {
    await setCache({ semantic: true, exact: false, ttl_seconds: 600, semantic_error_bound: 0.2 });
    rig.vendor.script({ content: 'Water boils at 100 degrees Celsius at sea level.' });
    expect(await ask('At what temperature does water boil?', 'boiling')).toBeNull();
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(rig.tenant.api_key),
      body: JSON.stringify({ model: 'auto', stream: true, messages: [{ role: 'user', content: 'At what temperature does water boil?' }], optimizer: { step: { id: 'boiling' } } }),
    });
    expect(r.status).toBe(200);
    const body = await r.text();
    expect(body).toContain('data: [DONE]');
    expect(r.headers.get('x-optimizer-cache-kind')).toBeNull(); // not proven yet: answered upstream
    await rig.gw.services.semanticCache.settle();
    expect(await verification('boiling')).toMatchObject({ bound: 0.2, verified: 1, verified_wrong: 0, threshold: null });
  });

  it('never serves a step whose upstream answers disagree with the cached ones', async () => {
    await setCache({ semantic: true, exact: false, ttl_seconds: 600, semantic_error_bound: 0.2 });
    for (let i = 0; i < 16; i++) {
      rig.vendor.script({ content: `Answer ${i}` });
      expect(await ask('Which day of the week is the market open?', 'market')).toBeNull();
    }
    expect(rig.vendor.requests.length).toBe(16);
    const v = await verification('market');
    expect(v).toMatchObject({ bound: 0.2, threshold: null, verified: 15, verified_wrong: 15, observed_error: null });
    expect(await metric('optimizer_semantic_cache_verified_total{range="unproven",result="disagree"}')).toBeGreaterThanOrEqual(15);
    // with the bound taken away, the same step serves by the threshold alone, as before
    await setCache({ semantic: true, exact: false, ttl_seconds: 600, semantic_error_bound: null });
    expect(await ask('Which day of the week is the market open?', 'market')).toBe('semantic');
  });
});
