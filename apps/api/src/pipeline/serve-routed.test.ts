// Stage: dispatch for a routed call (serve-routed.ts). The decided policy serves: one model
// behind the quality gate (a downshifted answer that fails it escalates to the baseline and
// counts against its policy), a cheap model the judge verifies, or a gate of two that must
// agree. The vendor is scripted behind the real adapter; nothing here learns (learn.ts does).
import { describe, expect, it } from 'vitest';
import type { Policy } from '../optimizer/policies.ts';
import type { PipelineDeps } from './deps.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { serveRouted } from './serve-routed.ts';
import { callContext, catalogOf, completion, profile, providersOf, scriptedVendor, storedKeys, type VendorAnswer } from '../../test/support/pipeline.ts';

const models = [profile('big', 'openai'), profile('small', 'groq'), profile('tiny', 'groq'), profile('judge', 'openai')];

function rig(answers: Record<string, VendorAnswer>) {
  const vendor = scriptedVendor(({ model }) => answers[model] ?? { status: 500 });
  const recorded: { policy: string; score: number }[] = [];
  const s = {
    config: {},
    catalog: catalogOf(models),
    providers: providersOf({ openai: {}, groq: {} }),
    providerKeys: storedKeys(),
    outbound: vendor.outbound,
    optimizer: { recordServed: (_step: unknown, sample: { policy: string; score: number }) => (recorded.push(sample), { row: { id: 'ev-1' }, events: [] }) },
  } as unknown as PipelineDeps;
  const ctx = callContext({ model: 'auto' });
  ctx.route = { model: 'small', provider: 'groq', requestedProvider: 'groq', profile: models[1], pinned: false, baselineModel: 'big', baselineProfile: models[0], reasons: [], failover: [] };
  const plan = (policy: Policy) => ({ decision: { policy, probe: [] }, step: { accountId: 'acct_1', workflowId: 'wf_1', fingerprint: 'fp', label: 'plan', release: '' }, baseline: 'big', judge: 'judge', floor: 0.9 }) as unknown as RoutedPlan;
  return { s, ctx, plan, sent: () => vendor.sent.map((r) => r.model), recorded };
}

const signal = new AbortController().signal;
const cutOff: VendorAnswer = { status: 200, body: completion('Os', 'length') };

describe('serveRouted', () => {
  it("serves a model policy's answer, the call now served by that model", async () => {
    const { s, ctx, plan, sent } = rig({ small: 'Oslo' });
    const named = await serveRouted(ctx, s, signal, plan({ kind: 'model', model: 'small' }));
    expect(named).toMatchObject({ name: 'small', answer: 'Oslo' });
    expect(ctx.served).toBe(named.attempt);
    expect(ctx.route).toMatchObject({ model: 'small', provider: 'groq' });
    expect(sent()).toEqual(['small']);
  });

  it('escalates a downshifted answer that fails the quality gate to the baseline, and counts it against the policy', async () => {
    const { s, ctx, plan, sent, recorded } = rig({ small: cutOff, big: 'Oslo' });
    const named = await serveRouted(ctx, s, signal, plan({ kind: 'model', model: 'small' }));
    expect(named.name).toBe('big');
    expect(sent()).toEqual(['small', 'big']);
    expect(ctx.attempts.map((a) => [a.model, a.outcome])).toEqual([['small', 'error'], ['big', 'ok']]);
    expect(recorded).toEqual([expect.objectContaining({ policy: 'model:small', score: 0 })]);
    expect(ctx.evidence).toEqual([{ id: 'ev-1' }]);
    expect(ctx.route!.reasons).toContain("quality gate: small's answer was cut off; escalated to big");
    expect(ctx.route).toMatchObject({ model: 'big', provider: 'openai' });
  });

  it("serves the baseline's own answer as it is", async () => {
    const { s, ctx, plan, sent } = rig({ big: cutOff });
    expect((await serveRouted(ctx, s, signal, plan({ kind: 'model', model: 'big' }))).answer).toBe('Os');
    expect(sent()).toEqual(['big']);
  });

  it("serves a verified answer the judge passes, and the baseline's when it fails it", async () => {
    const passed = rig({ small: 'Oslo', judge: '{"score":0.8}' });
    expect((await serveRouted(passed.ctx, passed.s, signal, passed.plan({ kind: 'verify', model: 'small' }))).name).toBe('small');
    expect(passed.ctx.attempts.map((a) => [a.model, a.role])).toEqual([['small', 'serve'], ['judge', 'serve']]);
    const failed = rig({ small: 'Bergen', judge: '{"score":0.2}', big: 'Oslo' });
    expect((await serveRouted(failed.ctx, failed.s, signal, failed.plan({ kind: 'verify', model: 'small' }))).name).toBe('big');
    expect(failed.ctx.route!.reasons).toContain("verify: the judge failed small's answer; escalated to big");
  });

  it('serves a gate when its two answers agree and escalates when they differ', async () => {
    const agreed = rig({ small: 'Oslo', tiny: 'oslo.' });
    expect((await serveRouted(agreed.ctx, agreed.s, signal, agreed.plan({ kind: 'gate', a: 'small', b: 'tiny' }))).name).toBe('small');
    expect(agreed.sent().sort()).toEqual(['small', 'tiny']);
    const split = rig({ small: 'Oslo', tiny: 'Bergen', big: 'Oslo' });
    expect((await serveRouted(split.ctx, split.s, signal, split.plan({ kind: 'gate', a: 'small', b: 'tiny' }))).name).toBe('big');
  });

  it("fails with the vendor's error, the call served by nothing", async () => {
    const { s, ctx, plan } = rig({ small: { status: 503 } });
    await expect(serveRouted(ctx, s, signal, plan({ kind: 'model', model: 'small' }))).rejects.toMatchObject({ code: 'upstream_error', status: 502 });
    expect(ctx.served).toBeNull();
  });
});
