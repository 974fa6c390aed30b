// Grading a trial after its answer is sent (grade-trial.ts): the baseline answers the same
// request beside it; where the two agree the trial's answer is as good as the baseline's, where
// they differ the judge grades both; the result is the candidate's probe. A failed side call, a
// judge with no grade or a policy that is not one model's records nothing.
import { describe, expect, it } from 'vitest';
import type { Decision } from '../optimizer/decision.ts';
import { noUsage } from '../wire/usage.ts';
import type { PipelineDeps } from './deps.ts';
import { gradesTrial, gradeTrial } from './grade-trial.ts';
import type { Named, RoutedPlan } from './routed-plan.ts';
import { callContext, completion, profile, routedServices, type VendorRequest } from '../../test/support/pipeline.ts';

const models = [profile('big', 'openai'), profile('small', 'groq', { input_per_mtok: 0.1, output_per_mtok: 0.2 }), profile('judge', 'openai')];
const step = { accountId: 'acct_1', workflowId: 'wf_1', fingerprint: 'fp', label: 'plan', release: '' };
const judge = (req: VendorRequest) => (JSON.stringify(req.body.messages).includes('Bergen') ? '{"score":0.2}' : '{"score":0.95}');

const plan = (decision: Partial<Decision> = {}): RoutedPlan => ({
  decision: { policy: { kind: 'model', model: 'small' }, probe: [], check: false, regrade: false, sampleBaseline: false, prune: false, pruneMinShare: 0, settled: false, reasons: [], gradeTrial: true, trial: { policy: 'model:small', budgetUsed: 0.2 }, ...decision },
  step, baseline: 'big', judge: 'judge', floor: 0.9,
});

const servedSmall = (answer: string): Named => ({ name: 'small', text: completion(answer), answer, finishReason: 'stop', status: 200, attempt: { provider: 'groq', model: 'small', profile: models[1], startedAt: new Date(), latencyMs: 5, status: 200, outcome: 'ok', usage: { ...noUsage, promptTokens: 10, completionTokens: 2 }, role: 'serve', paidBy: 'platform' } });

function rig(answers: Parameters<typeof routedServices>[1]) {
  const r = routedServices(models, answers);
  const ctx = callContext({ model: 'auto' });
  ctx.capture = { content: 'full', redact: false, request: ctx.body };
  return { ...r, s: r.s as unknown as PipelineDeps, ctx, probe: () => r.told.find((t) => t.op === 'recordProbe')?.args[1] as Record<string, any> | undefined };
}

const signal = new AbortController().signal;

describe('gradesTrial', () => {
  it('grades only a trial the decision asked to have graded, or a proven model whose proof it confirms', () => {
    expect(gradesTrial(plan())).toBe(true);
    expect(gradesTrial(plan({ gradeTrial: false }))).toBe(false);
    expect(gradesTrial(plan({ trial: undefined }))).toBe(false);
    expect(gradesTrial(plan({ gradeTrial: undefined, trial: undefined, confirm: 'model:small' }))).toBe(true);
  });
});

describe('gradeTrial', () => {
  it("records the trial's answer as as good as the baseline's where the two agree, without the judge", async () => {
    const { s, ctx, sent, probe } = rig({ big: 'Oslo', judge });
    await gradeTrial(ctx, s, signal, plan(), servedSmall('oslo'));
    expect(sent.map((r) => r.model)).toEqual(['big']);
    expect(probe()).toMatchObject({ policy: 'model:small', baselineScore: null, baselineText: 'Oslo', answers: { small: { text: 'oslo', score: null } } });
    expect(ctx.attempts.map((a) => [a.model, a.role])).toEqual([['big', 'probe']]);
  });

  it('has the judge grade both where they differ', async () => {
    const { s, ctx, sent, probe } = rig({ big: 'Oslo', judge });
    await gradeTrial(ctx, s, signal, plan(), servedSmall('Bergen'));
    expect(sent.map((r) => r.model).sort()).toEqual(['big', 'judge', 'judge']);
    expect(probe()).toMatchObject({ baselineScore: 0.95, answers: { small: { text: 'Bergen', score: 0.2 } } });
    expect(ctx.evidence).toHaveLength(1);
  });

  it("grades the baseline's answer too when the decision samples it", async () => {
    const { s, ctx, probe } = rig({ big: 'Oslo', judge });
    await gradeTrial(ctx, s, signal, plan({ sampleBaseline: true }), servedSmall('Oslo'));
    expect(probe()).toMatchObject({ baselineSampled: true, baselineScore: 0.95, answers: { small: { score: null } } });
  });

  it("grades a proven model's served answer where the decision confirms its proof, as a trial's", async () => {
    const { s, ctx, sent, probe } = rig({ big: 'Oslo', judge });
    await gradeTrial(ctx, s, signal, plan({ gradeTrial: undefined, trial: undefined, confirm: 'model:small' }), servedSmall('Bergen'));
    expect(sent.map((r) => r.model).sort()).toEqual(['big', 'judge', 'judge']);
    expect(probe()).toMatchObject({ policy: 'model:small', baselineScore: 0.95, answers: { small: { text: 'Bergen', score: 0.2 } } });
  });

  it("records nothing when the answer sent was not the model's: the quality gate escalated it to the baseline", async () => {
    const { s, ctx, sent, ops } = rig({ big: 'Oslo', judge });
    const escalated: Named = { ...servedSmall('Oslo'), name: 'big' };
    await gradeTrial(ctx, s, signal, plan(), escalated);
    expect(sent).toEqual([]);
    expect(ops()).toEqual([]);
  });

  it('records nothing when the side call fails, the judge gives no grade, or the trial is not one model', async () => {
    const failed = rig({ big: { status: 503 }, judge });
    await gradeTrial(failed.ctx, failed.s, signal, plan(), servedSmall('Bergen'));
    expect(failed.ops()).toEqual([]);
    const mute = rig({ big: 'Oslo', judge: 'no idea' });
    await gradeTrial(mute.ctx, mute.s, signal, plan(), servedSmall('Bergen'));
    expect(mute.ops()).toEqual([]);
    const gate = rig({ big: 'Oslo', judge });
    await gradeTrial(gate.ctx, gate.s, signal, plan({ trial: { policy: 'gate:small+tiny', budgetUsed: 0.1 } }), servedSmall('Oslo'));
    expect(gate.sent).toEqual([]);
    expect(gate.ops()).toEqual([]);
  });
});
