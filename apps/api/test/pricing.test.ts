// The optimizer block adds up and matches catalog prices × the vendor's usage,
// cached and reasoning tokens included.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelProfile } from '@optimizer/schema';
import { authed } from './support/gateway.ts';
import { callRecords, startRig, type Rig } from './support/vendor.ts';
import { warmStep } from './support/optimizer.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig.close();
});
beforeEach(() => rig.vendor.reset());

/** USD, rounded to the micro-dollar like the gateway. */
function expectedCost(p: ModelProfile, u: { prompt: number; completion: number; cached: number }): number {
  const micro = (u.prompt - u.cached) * p.input_per_mtok + u.cached * p.cached_input_per_mtok + u.completion * p.output_per_mtok;
  return Math.round(micro) / 1e6;
}

async function complete(model: string, stream = false): Promise<any> {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'price me' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
  });
  expect(r.status).toBe(200);
  if (!stream) return { ...((await r.json()) as object), id_call: r.headers.get('x-optimizer-call-id') };
  const text = await r.text();
  const events = text.split('\n\n').filter((e) => e.startsWith('data: ') && !e.includes('[DONE]'));
  return JSON.parse(events.at(-1)!.slice(6));
}

describe('the optimizer block', () => {
  it('prices cached input at the cached rate and the rest at the input rate', async () => {
    rig.vendor.script({ usage: { prompt_tokens: 12_000, completion_tokens: 3_000, cached_tokens: 8_000 } });
    const res = await complete('gpt-4o-mini');
    const p = rig.gw.services.catalog.get('gpt-4o-mini')!;
    const cost = expectedCost(p, { prompt: 12_000, completion: 3_000, cached: 8_000 });
    expect(res.optimizer).toEqual({ cache_hit: false, baseline_cost: cost, served_cost: cost, actual_cost: cost, exploration_cost: 0, saving: 0 });
    expect(res.optimizer.saving).toBeCloseTo(res.optimizer.baseline_cost - res.optimizer.actual_cost, 9);
  });

  it('bills reasoning tokens as output on a reasoning model, also on a stream', async () => {
    const reasoning = rig.gw.services.catalog.all().find((m) => m.reasoning_efforts.length > 0 && m.provider === 'openai' && !m.disabled)!;
    rig.vendor.script({ usage: { prompt_tokens: 2_000, completion_tokens: 5_000, reasoning_tokens: 4_000, cached_tokens: 1_000 } });
    const res = await complete(reasoning.model, true);
    const cost = expectedCost(reasoning, { prompt: 2_000, completion: 5_000, cached: 1_000 });
    expect(res.usage.completion_tokens_details.reasoning_tokens).toBe(4_000);
    expect(res.optimizer.served_cost).toBe(cost);
    expect(res.optimizer.actual_cost).toBe(cost);
    const [rec] = await callRecords(rig.gw, rig.tenant.account_id);
    expect(rec).toMatchObject({ reasoning_tokens: 4_000, cached_tokens: 1_000, completion_tokens: 5_000 });
    expect(Number(rec!.actual_micros)).toBe(Math.round(cost * 1e6));
  });

  it('reprices the very next call after a catalog price change', async () => {
    rig.vendor.script({ usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } });
    const before = await complete('gpt-4o-mini');
    const em = rig.gw.services.db.em();
    const conn = em.getConnection();
    const row = (await conn.execute(`select profile from catalog_models where model = 'gpt-4o-mini'`)) as { profile: ModelProfile }[];
    const original = row[0]!.profile;
    await conn.execute(`update catalog_models set profile = ? where model = 'gpt-4o-mini'`, [JSON.stringify({ ...original, input_per_mtok: 9 })]);
    await rig.gw.services.catalog.changed();
    try {
      const after = await complete('gpt-4o-mini');
      expect(before.optimizer.served_cost).toBe(original.input_per_mtok);
      expect(after.optimizer.served_cost).toBe(9);
    } finally {
      await conn.execute(`update catalog_models set profile = ? where model = 'gpt-4o-mini'`, [JSON.stringify(original)]);
      await rig.gw.services.catalog.changed();
    }
  });

  it('serves a new step of model auto from the baseline and charges its exploration to the call', async () => {
    rig.vendor.script({ usage: { prompt_tokens: 100, completion_tokens: 50 } });
    const first = await complete('auto');
    // a new step has no traffic to pay back a probe: it costs what the baseline costs, no more
    expect(first.optimizer.exploration_cost).toBe(0);
    expect(first.optimizer.actual_cost).toBe(first.optimizer.baseline_cost);
    warmStep(rig, { body: { messages: [{ role: 'user', content: 'price me' }] } });
    const res = await complete('auto');
    expect(res.optimizer.served_cost).toBe(res.optimizer.baseline_cost);
    // the answer leaves before the step learns from it: its block holds no exploration yet
    expect(res.optimizer.exploration_cost).toBe(0);
    expect(res.optimizer.actual_cost).toBe(res.optimizer.served_cost);
    // the probes and grades that followed are metered on the call's record, and its saving is net of them
    await rig.gw.learned();
    const call = (await (await fetch(`${rig.gw.url}/v1/calls/${res.id_call}`, { headers: authed(rig.tenant.api_key) })).json()) as { cost: { baseline: number; served: number; actual: number; exploration: number }; saving: number };
    expect(call.cost.exploration).toBeGreaterThan(0);
    expect(call.cost.actual).toBeCloseTo(call.cost.served + call.cost.exploration, 6);
    expect(call.saving).toBeCloseTo(call.cost.baseline - call.cost.actual, 6);
    const served = rig.vendor.requests.find((r) => r.body.model === res.model || res.model?.startsWith(r.body.model));
    expect(served).toBeDefined();
    expect(rig.gw.services.catalog.get(served!.body.model)).toBeDefined();
  });

  it('prices a model the catalog does not know at zero and says so in the reasons', async () => {
    await complete('ft:gpt-4o-mini:acme:custom:abc');
    const [rec] = await callRecords(rig.gw, rig.tenant.account_id);
    expect(Number(rec!.actual_micros)).toBe(0);
    expect(rec!.reasons[0]).toContain('not in the catalog');
  });
});

describe('counting a huge prompt', () => {
  it('counts 200 KB without a break in pieces, the same as whole for ordinary text and never fewer', async () => {
    const { countTokens } = await import('../src/pipeline/tokens.ts');
    const prose = 'The gateway counts what a vendor did not report, so the call is still billed. '.repeat(400);
    const { encode } = (await import('gpt-tokenizer')) as { encode: (t: string) => number[] };
    const whole = encode(prose).length;
    expect(countTokens(prose)).toBeGreaterThanOrEqual(whole);
    expect(countTokens(prose)).toBeLessThanOrEqual(whole * 1.001 + 1);
    // one 200 KB run: whole, BPE takes tens of seconds; in pieces it is counted at once
    expect(countTokens('y'.repeat(200_000))).toBe(50_000);
  });
});
