// Stage: route, for `auto` (plan-routed.ts): the models the call may use are those on a vendor
// it holds a key for (sent, stored or the platform's) that fit the request; the baseline is the
// strongest of them; the optimizer decides among the cheaper ones, against the step's quality bar.
import { describe, expect, it } from 'vitest';
import type { DecideInput } from '../optimizer/decide-input.ts';
import type { Decision } from '../optimizer/decision.ts';
import type { PipelineDeps } from './deps.ts';
import { planRouted } from './plan-routed.ts';
import { callContext, catalogOf, profile, providersOf, storedKeys } from '../../test/support/pipeline.ts';

const models = [
  profile('big', 'openai', { strengths: { chat: 0.9, code: 0.9 }, input_per_mtok: 2, output_per_mtok: 8 }),
  profile('mid', 'anthropic', { strengths: { chat: 0.8 }, input_per_mtok: 1, output_per_mtok: 4 }), // no platform key
  profile('small', 'groq', { strengths: { chat: 0.6, code: 0.3 }, input_per_mtok: 0.1, output_per_mtok: 0.4 }),
  profile('own', 'mistral', { strengths: { chat: 0.7 }, input_per_mtok: 0.5, output_per_mtok: 1 }), // no platform key: the tenant's stored one
  profile('blind', 'groq', { strengths: { chat: 0.7 }, input_per_mtok: 0.2, output_per_mtok: 0.5, tools: 'none' }),
];

const decision = (model: string): Decision => ({ policy: { kind: 'model', model }, probe: [], check: false, regrade: false, sampleBaseline: false, prune: true, pruneMinShare: 0, settled: false, reasons: ['the optimizer chose'] });

function deps(settings: Record<string, unknown> = {}, serve = 'small') {
  const decided: DecideInput[] = [];
  const remembered: unknown[] = [];
  const s = {
    catalog: catalogOf(models),
    providers: providersOf({ openai: {}, anthropic: { platformKey: false }, groq: {}, mistral: { platformKey: false } }),
    providerKeys: storedKeys(['mistral']),
    routingSettings: { get: () => settings, floor: () => 0.9 },
    latency: { of: () => undefined },
    workflowLife: { lockInForce: () => undefined },
    steps: { seen: () => undefined },
    discovery: { isDiscovering: () => false },
    outcomes: { remember: (...args: unknown[]) => void remembered.push(args) },
    optimizer: { draw: () => 0.5, decide: (input: DecideInput) => (decided.push(input), decision(serve)), judgePanel: () => ({ adopted: false }), takeEvents: () => [], kindOf: (step: { kind?: string }, ask: () => string | undefined) => step.kind ?? ask() },
  } as unknown as PipelineDeps;
  return { s, decided, remembered };
}

describe('planRouted', () => {
  it('plans among the models on vendors the call holds a key for, cheapest first, the strongest as baseline', () => {
    const { s, decided } = deps();
    const ctx = callContext({ model: 'auto' });
    const plan = planRouted(ctx, s);
    expect(decided[0]!.baseline).toBe('big');
    expect(decided[0]!.cheaper).toEqual(['small', 'blind', 'own']); // not mid: no key for anthropic
    expect(decided[0]!.floor).toBe(0.9);
    expect(plan).toMatchObject({ baseline: 'big', judge: 'big', floor: 0.9 });
    expect(ctx.route).toMatchObject({ model: 'small', provider: 'groq', pinned: false, baselineModel: 'big' });
    expect(ctx.route!.reasons.at(-1)).toMatch(/^quality bar 0.9 for step /);
    expect(ctx.optimizer).toMatchObject({ policy: 'model:small', baseline: 'big', floor: 0.9 });
  });

  it("reaches a vendor with the client's key for it, and leaves out models that cannot do what the request asks", () => {
    const { s, decided } = deps();
    const ctx = callContext({ model: 'auto', tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, { 'x-provider-key-anthropic': 'sk-client' });
    planRouted(ctx, s);
    expect(decided[0]!.cheaper).toEqual(['small', 'own', 'mid']); // mid with the client's key; blind takes no tools
  });

  it('keeps to the providers the tenant allows', () => {
    const { s, decided } = deps({ allowed_providers: ['groq', 'mistral'] });
    planRouted(callContext({ model: 'auto' }), s);
    expect(decided[0]!.baseline).toBe('own');
    expect(decided[0]!.cheaper).toEqual(['small', 'blind']);
  });

  it('refuses provider_unavailable when no reachable model can serve', () => {
    const { s } = deps({ allowed_providers: ['anthropic'] });
    expect(() => planRouted(callContext({ model: 'auto' }), s)).toThrow(expect.objectContaining({ code: 'provider_unavailable', param: 'model' }));
  });

  it("refuses a production call 409 production_key_required, naming the platform-keyed vendors it has no key of its own for", () => {
    const { s } = deps({ allowed_providers: ['openai'] });
    const prod = callContext({ model: 'auto' });
    prod.production = true; // the platform's openai key is not the tenant's
    expect(() => planRouted(prod, s)).toThrow(expect.objectContaining({ code: 'production_key_required', status: 409, extra: { providers: ['openai'] } }));
    const dev = callContext({ model: 'auto' });
    expect(planRouted(dev, s).baseline).toBe('big');
  });

  it("raises the bar to the step's min_score and to 0.99 for a quality objective, never lowers it", () => {
    const { s, decided } = deps();
    const ctx = callContext({ model: 'auto' });
    ctx.annotation = { step: { id: 'plan', quality: { min_score: 0.95 } } } as typeof ctx.annotation;
    planRouted(ctx, s);
    const lower = callContext({ model: 'auto' });
    lower.annotation = { step: { id: 'plan', quality: { min_score: 0.5 } } } as typeof lower.annotation;
    planRouted(lower, s);
    const quality = callContext({ model: 'auto' });
    quality.annotation = { intent: { objective: 'quality' } } as typeof quality.annotation;
    planRouted(quality, s);
    expect(decided.map((d) => d.floor)).toEqual([0.95, 0.9, 0.99]);
  });

  it('serves the baseline unpruned under routing mode pinned, and says so', () => {
    const { s, decided } = deps({ mode: 'pinned' }, 'big');
    const ctx = callContext({ model: 'auto' });
    const plan = planRouted(ctx, s);
    expect(decided[0]!.serveBaseline).toBe(true);
    expect(plan.decision.prune).toBe(false);
    expect(ctx.route!.reasons[0]).toMatch(/^routing mode pinned: the baseline serves every call/);
  });

  it("starts a candidate's prior from its catalog strength for the step's kind of work: declared, else what the request asks for, else general", () => {
    const { s, decided } = deps();
    const code = callContext({ model: 'auto', messages: [{ role: 'user', content: 'Write a python function that reverses a list.' }] });
    planRouted(code, s);
    expect(code.route!.reasons.at(-1)).toMatch(/ \(code, read from its requests\)$/);
    expect(decided[0]!.strengthShares!.small).toBeCloseTo(0.3 / 0.9); // code
    expect(decided[0]!.step.kind).toBeUndefined(); // read, not declared: the step's state keeps what its calls ask for
    planRouted(callContext({ model: 'auto' }), s);
    expect(decided[1]!.strengthShares!.small).toBeCloseTo(0.6 / 0.9); // general work: the chat strength, not a mean with code's
    const declared = callContext({ model: 'auto' });
    declared.annotation = { step: { id: 'plan', kind: 'code' } } as typeof declared.annotation;
    planRouted(declared, s);
    expect(decided[2]!.strengthShares!.small).toBeCloseTo(0.3 / 0.9);
    expect(decided[2]!.step.kind).toBe('code');
  });

  it("remembers an annotated run's call for the outcome that may follow", () => {
    const { s, remembered } = deps();
    const ctx = callContext({ model: 'auto' });
    ctx.annotation = { step: { id: 'plan' }, run: { id: 'run-1' } } as typeof ctx.annotation;
    const plan = planRouted(ctx, s);
    expect(remembered).toEqual([['acct_1', 'run-1', 'plan', plan.runCall]]);
    expect(plan.runCall).toMatchObject({ callId: ctx.id, policy: 'model:small', baseline: 'big' });
  });
});
