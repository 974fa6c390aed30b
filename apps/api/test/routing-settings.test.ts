// Every routing setting takes effect (issue 15): mode, tiebreak and band, ladders per tier (a
// misspelled tier is a tier of its own that learns from zero), learning_mode, advanced_search,
// the annotation's step.kind and intent.objective latency, and the catalog's context_length and
// max_output_tokens. Each test shows the routing the setting changes, against a mock vendor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelProfile } from '@optimizer/schema';
import { authed } from './support/gateway.ts';
import { ROUTING_CLEARED, startRig, type Rig } from './support/vendor.ts';
import { warmStep } from './support/optimizer.ts';
import { stepIdentity } from '../src/optimizer/fingerprint.ts';
import { tieredIdentity } from '../src/pipeline/plan-routed.ts';

let rig: Rig;
const JUDGE_PASSES = { content: '{"score": 1, "reason": "correct"}' };
const BASE = { allowed_providers: ['openai'], baseline_model: 'gpt-4.1' };

beforeAll(async () => {
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000' } });
  rig.vendor.script(JUDGE_PASSES);
});
afterAll(async () => {
  await rig.close();
});

async function settings(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify(body) });
}

/** The settings become exactly `body`: every other field back to its default (a write merges). */
async function use(body: Record<string, unknown>): Promise<void> {
  const r = await settings({ ...ROUTING_CLEARED, ...body });
  expect(r.status, await r.clone().text()).toBe(200);
}

type Block = { exploration_cost: number; saving: number };

/** One routed call of `step`; the model that served it, its block and its reasons. */
async function ask(step: string, opts: { model?: string; optimizer?: Record<string, unknown>; body?: Record<string, unknown>; i?: number } = {}) {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ model: opts.model ?? 'auto', messages: [{ role: 'user', content: `sort ticket ${opts.i ?? 0}` }], optimizer: { step: { id: step }, ...opts.optimizer }, ...opts.body }),
  });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  await rig.gw.learned(); // what the call learns after its answer is metered on its record
  const calls = (await (await fetch(`${rig.gw.url}/v1/calls?limit=1`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { id: string; reasons: string[]; cost: { exploration: number } }[] };
  expect(calls.data[0]!.id).toBe(r.headers.get('x-optimizer-call-id'));
  const call = calls.data[0]!;
  return { model: r.headers.get('x-optimizer-model')!, trial: r.headers.get('x-optimizer-trial'), block: (JSON.parse(text) as { optimizer: Block }).optimizer, reasons: call.reasons.join('\n'), explored: call.cost.exploration };
}

function stepKey(step: string, tier = 'standard') {
  const id = tieredIdentity(stepIdentity(rig.tenant.workflow_id, { step: { id: step } }, {}), tier);
  return { accountId: rig.tenant.account_id, workflowId: rig.tenant.workflow_id, fingerprint: id.fingerprint, label: id.display, release: '' };
}

/**
 * Evidence that `policy` answered `n` probed requests of the step as the baseline did (each
 * model's answer at its cost), but for the first `misses` answers of `weak`, graded 0.8.
 */
function prove(step: string, policy: string, costs: Record<string, number>, opts: { n?: number; tier?: string; weak?: string; misses?: number } = {}): void {
  const key = stepKey(step, opts.tier);
  for (let i = 0; i < (opts.n ?? 100); i++) {
    const answers = Object.fromEntries(Object.entries(costs).map(([m, c]) => [m, m === opts.weak && i < (opts.misses ?? 0) ? { text: 'wrong', score: 0.8, costMicros: c } : { text: 'same', score: null, costMicros: c }]));
    rig.gw.services.optimizer.recordProbe(key, { at: Date.now(), policy, spentMicros: 0, baselineScore: 1, baselineText: 'same', baselineCostMicros: 2000, answers });
  }
}

const admin = () => ({ authorization: `Bearer ${rig.gw.adminKey}`, 'content-type': 'application/json' });
async function setProfile(model: string, over: Partial<ModelProfile>): Promise<ModelProfile> {
  const before = rig.gw.services.catalog.get(model)!;
  const r = await fetch(`${rig.gw.url}/v1/admin/catalog/${model}`, { method: 'PUT', headers: admin(), body: JSON.stringify({ ...before, ...over }) });
  expect(r.status).toBe(200);
  return before;
}

describe('tiebreak and band', () => {
  it('serve the cheapest holding policy by cost, the best-holding within the band by quality, the fastest within the band by latency', async () => {
    // nano holds (a few misses) at 5 % of the baseline's cost, mini holds better at 20 %
    prove('tiebreak', 'model:gpt-5-nano', { 'gpt-5-nano': 100 }, { weak: 'gpt-5-nano', misses: 1 });
    prove('tiebreak', 'model:gpt-4.1-mini', { 'gpt-4.1-mini': 400 });
    await use({ ...BASE, tiebreak: 'cost', band: 0.5 });
    expect((await ask('tiebreak')).model).toBe('gpt-5-nano');
    await use({ ...BASE, tiebreak: 'quality' }); // band 0: only the cheapest is in it
    expect((await ask('tiebreak')).model).toBe('gpt-5-nano');
    await use({ ...BASE, tiebreak: 'quality', band: 0.2 });
    expect((await ask('tiebreak')).model).toBe('gpt-4.1-mini');
    // latency: the faster of the two as this replica has seen them answer
    for (let i = 0; i < 20; i++) {
      rig.gw.services.latency.observe('gpt-5-nano', 5_000);
      rig.gw.services.latency.observe('gpt-4.1-mini', 1);
    }
    await use({ ...BASE, tiebreak: 'latency', band: 0.2 });
    expect((await ask('tiebreak')).model).toBe('gpt-4.1-mini');
    for (let i = 0; i < 20; i++) {
      rig.gw.services.latency.observe('gpt-5-nano', 1);
      rig.gw.services.latency.observe('gpt-4.1-mini', 5_000);
    }
    expect((await ask('tiebreak')).model).toBe('gpt-5-nano');
  });

  it('let a call that asks for latency take the fastest policy in the band, even under a cost tiebreak', async () => {
    for (let i = 0; i < 20; i++) {
      rig.gw.services.latency.observe('gpt-5-nano', 5_000);
      rig.gw.services.latency.observe('gpt-4.1-mini', 1);
    }
    await use({ ...BASE, tiebreak: 'cost', band: 0.2 });
    expect((await ask('tiebreak')).model).toBe('gpt-5-nano');
    expect((await ask('tiebreak', { optimizer: { intent: { objective: 'latency' } } })).model).toBe('gpt-4.1-mini');
  });
});

describe('intent.objective latency', () => {
  it('explores a call that asks for latency too, after its answer: no probe runs inside the call', async () => {
    await use(BASE);
    warmStep(rig, 'hurry', 4000); // enough traffic that proving the likeliest candidate (gpt-5-mini, near the baseline on general work) fits the step's budget
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    const fast = await ask('hurry', { optimizer: { intent: { objective: 'latency' } } });
    expect(fast.block.exploration_cost).toBe(0); // the answer left before its probes
    expect(fast.reasons).toMatch(/explored: probed/);
    expect(fast.explored).toBeGreaterThan(0);
    expect(rig.vendor.requests.length).toBeGreaterThan(1);
  });
});

describe('mode', () => {
  it('auto serves the proven policy; pinned serves the baseline and goes on learning; off serves the baseline and learns nothing', async () => {
    prove('modes', 'model:gpt-5-nano', { 'gpt-5-nano': 100 });
    warmStep(rig, 'modes');
    await use({ ...BASE, mode: 'auto' });
    expect((await ask('modes')).model).toBe('gpt-5-nano');
    await use({ ...BASE, mode: 'pinned' });
    let explored = 0;
    for (let i = 0; i < 8; i++) {
      const r = await ask('modes', { i });
      expect(r.model).toBe('gpt-4.1');
      expect(r.reasons).toContain('routing mode pinned: the baseline serves every call; learning goes on beside it by side probes');
      expect(r.trial).toBeNull();
      if (r.explored > 0) explored++;
    }
    expect(explored).toBeGreaterThan(0);
    await use({ ...BASE, mode: 'off' });
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    for (let i = 0; i < 8; i++) {
      const r = await ask('modes', { i });
      expect(r.model).toBe('gpt-4.1');
      expect(r.explored).toBe(0);
      expect(r.reasons).toContain('no probe: learning_mode off');
    }
    expect(rig.vendor.requests.map((q) => q.body.model)).toEqual(Array(8).fill('gpt-4.1'));
    await use({ ...BASE, mode: 'auto' });
    expect((await ask('modes')).model).toBe('gpt-5-nano');
  });
});

describe('learning_mode', () => {
  it('off probes and tries nothing; shadow probes beside the served answer and never serves an unproven candidate', async () => {
    warmStep(rig, 'learner');
    await use({ ...BASE, learning_mode: 'off' });
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    for (let i = 0; i < 5; i++) {
      const r = await ask('learner', { i });
      expect(r.explored).toBe(0);
      expect(r.trial).toBeNull();
      expect(r.reasons).toContain('no probe: learning_mode off');
    }
    expect(rig.vendor.requests).toHaveLength(5);
    await use({ ...BASE, learning_mode: 'shadow' });
    const r = await ask('learner', { i: 9 });
    expect(r.reasons).toMatch(/explored: probed/);
    expect(r.explored).toBeGreaterThan(0);
    expect(r.model).toBe('gpt-4.1');
    expect(r.trial).toBeNull();
  });

  it('refuses the former names on a write, and reads them on a stored setting as today\'s', async () => {
    for (const old of ['explore', 'exploit']) expect((await settings({ ...BASE, learning_mode: old })).status).toBe(422);
    await rig.gw.services.db.em().getConnection().execute('update routing_settings set settings = ? where account_id = ?', [JSON.stringify({ ...BASE, learning_mode: 'exploit' }), rig.tenant.account_id]);
    await rig.gw.services.hot.publish('routing-settings:changed', rig.tenant.account_id);
    await new Promise((r) => setTimeout(r, 200));
    const view = (await (await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) })).json()) as { learning_mode: string };
    expect(view.learning_mode).toBe('off');
    await use({ ...BASE });
  });
});

describe('advanced_search', () => {
  it('on, a proven gate of two cheap models serves; off, only single-model policies are searched and served', async () => {
    // the gate holds (its two models agree with the baseline) while neither model has evidence of its own
    prove('search', 'gate:gpt-5-nano+gpt-4.1-mini', { 'gpt-5-nano': 100, 'gpt-4.1-mini': 400 });
    await use({ ...BASE, advanced_search: true });
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    const on = await ask('search');
    expect(on.reasons).toMatch(/routed to gate\(gpt-5-nano \+ gpt-4\.1-mini/);
    expect(rig.vendor.requests.map((q) => q.body.model).sort()).toEqual(['gpt-4.1-mini', 'gpt-5-nano']);
    // a stream on the same step is served by the gate too: answered whole, then replayed as the vendor's events
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    const streamed = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'auto', stream: true, messages: [{ role: 'user', content: 'sort ticket 7' }], optimizer: { step: { id: 'search' } } }) });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await streamed.text()).split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    const last = JSON.parse(events.at(-2)!.slice(6)) as { optimizer?: { actual_cost: number } };
    expect(last.optimizer?.actual_cost).toBeGreaterThan(0);
    expect(rig.vendor.requests.map((q) => [q.body.model, q.body.stream ?? false]).sort()).toEqual([['gpt-4.1-mini', false], ['gpt-5-nano', false]]);
    await use({ ...BASE, advanced_search: false });
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    const off = await ask('search');
    expect(off.model).toBe('gpt-4.1');
    expect(off.reasons).toContain('advanced search off: single-model policies only');
    expect(rig.vendor.requests.map((q) => q.body.model)).toEqual(['gpt-4.1']);
  });
});

describe('ladders', () => {
  const LADDERS = { standard: ['gpt-5-nano', 'gpt-4.1-mini', 'gpt-4.1'], premium: ['gpt-4o-mini', 'gpt-4o'] };

  it('route each tier within its ladder, its top rung the baseline, and a tier named in the model learns on its own', async () => {
    // evidence on the step as plain `auto` calls it: nano holds, and so would gpt-4o-mini
    prove('tiered', 'model:gpt-5-nano', { 'gpt-5-nano': 100 });
    prove('tiered', 'model:gpt-4o-mini', { 'gpt-4o-mini': 100 });
    await use({ allowed_providers: ['openai'], ladders: LADDERS });
    const standard = await ask('tiered');
    expect(standard.model).toBe('gpt-5-nano');
    expect(standard.reasons).toContain('tier standard: routing within its ladder (gpt-5-nano, gpt-4.1-mini, gpt-4.1)');
    // the premium tier: its ladder's top rung serves, and the standard tier's evidence is not its own
    warmStep(rig, 'premium-probes');
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    const premium = await ask('tiered', { model: 'auto:premium' });
    expect(premium.model).toBe('gpt-4o');
    expect(premium.reasons).toContain('tier premium: routing within its ladder (gpt-4o-mini, gpt-4o)');
    expect(premium.reasons).toContain('quality bar 0.95 for step tiered [premium]');
    // a baseline model off the ladder gives way to the ladder's top rung
    await use({ allowed_providers: ['openai'], baseline_model: 'gpt-4.1', ladders: LADDERS });
    const named = await ask('tiered', { model: 'auto:premium' });
    expect(named.model).toBe('gpt-4o');
    expect(named.reasons).toContain('baseline gpt-4.1 cannot serve this request (not on the premium ladder); gpt-4o is the baseline');
    // side probes stay on the ladder too
    await use({ allowed_providers: ['openai'], ladders: { standard: ['gpt-4.1-mini', 'gpt-4.1'] }, learning_mode: 'shadow' });
    warmStep(rig, 'laddered', 10_000);
    rig.vendor.reset();
    rig.vendor.script(JUDGE_PASSES);
    for (let i = 0; i < 6; i++) expect((await ask('laddered', { i })).reasons).toMatch(/explored: probed \S*gpt-4\.1-mini/);
    expect(new Set(rig.vendor.requests.map((q) => q.body.model))).toEqual(new Set(['gpt-4.1', 'gpt-4.1-mini']));
  });

  it('accepts a misspelled tier on the raw write: the intended tier is untouched, and the misspelled one starts from zero', async () => {
    const r = await settings({ allowed_providers: ['openai'], ladders: { ...LADDERS, premuim: ['gpt-5-nano', 'gpt-4o-mini'] } });
    expect(r.status).toBe(200);
    const stored = (await (await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) })).json()) as { ladders: Record<string, string[]> };
    expect(stored.ladders.premuim).toEqual(['gpt-5-nano', 'gpt-4o-mini']);
    expect((await ask('tiered', { model: 'auto:premium' })).model).toBe('gpt-4o');
    // `premuim` is its own tier: its ladder, and no evidence (nano and gpt-4o-mini hold for the step as `auto` calls it)
    const misspelled = await ask('tiered', { model: 'auto:premuim' });
    expect(misspelled.model).toBe('gpt-4o-mini');
    expect(misspelled.reasons).toMatch(/served by the baseline gpt-4o-mini: no cheaper policy proven/);
  });
});

describe('step.kind', () => {
  it('starts exploring where the catalog says the step kind is strong', async () => {
    // two cheap models of about one price: gpt-4.1-mini strong at code and weak at math, gpt-5-mini the reverse
    const a = await setProfile('gpt-4.1-mini', { strengths: { code: 1, math: 0 } });
    const b = await setProfile('gpt-5-mini', { strengths: { code: 0, math: 1 } });
    try {
      await use({ allowed_providers: ['openai'], advanced_search: false, ladders: { standard: ['gpt-4.1-mini', 'gpt-5-mini', 'gpt-4.1'] } });
      // steps with traffic enough that every call may probe (a marginal one is sampled)
      warmStep(rig, 'coder', 20_000);
      warmStep(rig, 'mathematician', 20_000);
      const probed = async (step: string, kind: string) => {
        const picks: string[] = [];
        for (let i = 0; i < 5; i++) {
          const pick = (await ask(step, { optimizer: { step: { id: step, kind } }, i })).reasons.match(/explored: probed (\S+)/)?.[1];
          if (pick) picks.push(pick);
        }
        return picks;
      };
      // a prior is a starting point, not a verdict: the weak candidate keeps a small chance of a probe
      // (drawn by payback to the fourth power: about 0.1 % of calls here), so at most one of five goes to it
      const strongFirst = (picks: string[], strong: string) => {
        expect(picks.filter((p) => p === strong).length).toBeGreaterThanOrEqual(3);
        expect(picks.filter((p) => p !== strong).length).toBeLessThanOrEqual(1);
      };
      strongFirst(await probed('coder', 'code'), 'model:gpt-4.1-mini');
      strongFirst(await probed('mathematician', 'math'), 'model:gpt-5-mini');
    } finally {
      await setProfile('gpt-4.1-mini', { strengths: a.strengths });
      await setProfile('gpt-5-mini', { strengths: b.strengths });
    }
  });
});

describe('context_length and max_output_tokens', () => {
  it('never route to a model whose output cap is under the request max_tokens: the next candidate serves, and the reason says why', async () => {
    const before = await setProfile('gpt-4.1', { max_output_tokens: 1000 });
    try {
      await use(BASE);
      rig.vendor.reset();
      rig.vendor.script(JUDGE_PASSES);
      const r = await ask('capped', { body: { max_tokens: 2000 } });
      expect(r.model).not.toBe('gpt-4.1');
      expect(r.reasons).toContain('gpt-4.1 writes at most 1000 tokens, the request asks for up to 2000');
      expect(r.reasons).toContain(`baseline gpt-4.1 cannot serve this request (too small); ${r.model} is the baseline`);
      expect(rig.vendor.requests.map((q) => q.body.model)).not.toContain('gpt-4.1');
      expect((await ask('capped', { body: { max_tokens: 500 } })).model).toBe('gpt-4.1');
    } finally {
      await setProfile('gpt-4.1', { max_output_tokens: before.max_output_tokens });
    }
  });

  it("never route to a model whose context cannot hold the prompt, even one proven on the step", async () => {
    prove('windowed', 'model:gpt-5-nano', { 'gpt-5-nano': 100 });
    const before = await setProfile('gpt-5-nano', { context_length: 300 });
    try {
      await use(BASE);
      expect((await ask('windowed')).model).toBe('gpt-5-nano');
      const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
      const r = await ask('windowed', { body: { messages: [{ role: 'user', content: long }] } });
      expect(r.model).toBe('gpt-4.1');
      expect(r.reasons).toMatch(/skipped as too small for this request: .*gpt-5-nano's context of 300 tokens cannot hold the prompt's ~\d+/);
    } finally {
      await setProfile('gpt-5-nano', { context_length: before.context_length });
    }
  });
});
