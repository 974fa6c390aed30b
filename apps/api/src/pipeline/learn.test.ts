// Learning after the answer (learn.ts): what a routed call teaches its step once it is answered.
// Probes of the candidate run on the same request and are compared with the baseline's answer;
// the judge is paid only where they differ; a failed probe or a judge with no grade records
// nothing; a settled step's drift check grades the served answer.
import { describe, expect, it } from 'vitest';
import type { Decision } from '../optimizer/decision.ts';
import { noUsage } from '../wire/usage.ts';
import type { PipelineDeps } from './deps.ts';
import { learnFrom, learnsAfter } from './learn.ts';
import type { Named, RoutedPlan } from './routed-plan.ts';
import { callContext, completion, profile, routedServices, type VendorRequest } from '../../test/support/pipeline.ts';

const models = [profile('big', 'openai'), profile('small', 'groq', { input_per_mtok: 0.1, output_per_mtok: 0.2 }), profile('judge', 'openai')];
const step = { accountId: 'acct_1', workflowId: 'wf_1', fingerprint: 'fp', label: 'plan', release: '' };
const signal = () => new AbortController().signal;

/** A judge that grades an answer naming Bergen 0.1 and any other 0.9. */
const judge = (req: VendorRequest) => (JSON.stringify(req.body.messages).includes('Bergen') ? '{"score":0.1}' : '{"score":0.9}');

function planOf(decision: Partial<Decision>): RoutedPlan {
  return { decision: { policy: { kind: 'model', model: 'big' }, probe: [], check: false, regrade: false, sampleBaseline: false, prune: false, pruneMinShare: 0, settled: false, reasons: [], ...decision }, step, baseline: 'big', judge: 'judge', floor: 0.9 };
}

function servedBy(name: string, answer: string): Named {
  const attempt = { provider: 'openai', model: name, profile: models[0], startedAt: new Date(), latencyMs: 5, status: 200, outcome: 'ok' as const, usage: { ...noUsage, promptTokens: 10, completionTokens: 2 }, role: 'serve' as const, paidBy: 'platform' as const };
  return { name, text: completion(answer), answer, finishReason: 'stop', attempt, status: 200 };
}

function rig(answers: Parameters<typeof routedServices>[1]) {
  const r = routedServices(models, answers);
  const ctx = callContext({ model: 'auto' });
  ctx.route = { model: 'big', provider: 'openai', requestedProvider: 'openai', profile: models[0], pinned: false, baselineModel: 'big', baselineProfile: models[0], reasons: [], failover: [] };
  return { ...r, s: r.s as unknown as PipelineDeps, ctx };
}

const probeOf = (told: { op: string; args: unknown[] }[]) => told.find((t) => t.op === 'recordProbe')?.args[1] as Record<string, any> | undefined;

describe('learnsAfter', () => {
  it('learns from a call that probes, checks, grades a trial or measures the cheap judge; from no other', () => {
    expect(learnsAfter(planOf({}))).toBe(false);
    expect(learnsAfter(planOf({ probe: ['small'] }))).toBe(true);
    expect(learnsAfter(planOf({ check: true }))).toBe(true);
    expect(learnsAfter(planOf({ gradeTrial: true, trial: { policy: 'model:small', budgetUsed: 0.1 } }))).toBe(true);
    expect(learnsAfter(planOf({ gradeTrial: true }))).toBe(false); // no trial to grade
    expect(learnsAfter(planOf({ gradeForTruth: true }))).toBe(false); // no panel, no run to measure it by
  });
});

describe('learnFrom', () => {
  it("records a probe that agrees with the baseline's served answer without paying the judge", async () => {
    const { s, ctx, told, sent } = rig({ small: 'oslo.', judge });
    await learnFrom(ctx, s, signal(), planOf({ probe: ['small'], probing: 'model:small' }), servedBy('big', 'Oslo'));
    expect(sent.map((r) => r.model)).toEqual(['small']);
    const probe = probeOf(told)!;
    expect(probe).toMatchObject({ policy: 'model:small', call: ctx.id, baselineScore: null, answers: { small: { score: null } } });
    // the tenant's capture keeps no text, so neither does evidence: only what agreement compares
    expect(probe).not.toHaveProperty('baselineText');
    expect(probe.answers.small).not.toHaveProperty('text');
    expect(probe.answers.small.key).toBe(probe.baselineKey);
    expect(ctx.attempts.map((a) => [a.model, a.role])).toEqual([['small', 'probe']]);
    expect(ctx.evidence).toHaveLength(1);
  });

  it('has the judge grade a probe that differs, and the baseline beside it', async () => {
    const { s, ctx, told } = rig({ small: 'Bergen', judge });
    ctx.capture = { content: 'full', redact: false, request: ctx.body }; // evidence may keep the texts
    await learnFrom(ctx, s, signal(), planOf({ probe: ['small'], probing: 'model:small' }), servedBy('big', 'Oslo'));
    expect(probeOf(told)).toMatchObject({ baselineScore: 0.9, baselineText: 'Oslo', answers: { small: { text: 'Bergen', score: 0.1 } } });
    expect(ctx.attempts.map((a) => a.role).sort()).toEqual(['judge', 'judge', 'probe']);
  });

  it("where outcomes decide, leaves a short differing answer to the call's outcome and has the judge grade a long one", async () => {
    // a choice that differs is wrong when the baseline's was right: the outcome will say, for free
    const short = rig({ small: 'Bergen', judge });
    await learnFrom(short.ctx, short.s, signal(), planOf({ probe: ['small'], probing: 'model:small', gradeDiffering: false }), servedBy('big', 'Oslo'));
    expect(probeOf(short.told)).toMatchObject({ awaitsOutcome: true, baselineScore: null, answers: { small: { score: null } } });
    expect(short.ctx.attempts.map((a) => a.role)).toEqual(['probe']);
    // a program that differs is not wrong because the baseline's was right: the outcome cannot resolve it
    const program = (name: string) => `def capital():\n    return "${name}"`;
    const long = rig({ small: program('Bergen'), judge });
    await learnFrom(long.ctx, long.s, signal(), planOf({ probe: ['small'], probing: 'model:small', gradeDiffering: false }), servedBy('big', program('Oslo')));
    const probe = probeOf(long.told)!;
    expect(probe).not.toHaveProperty('awaitsOutcome');
    expect(probe).toMatchObject({ baselineScore: 0.9, answers: { small: { score: 0.1 } } });
    expect(long.ctx.attempts.map((a) => a.role).sort()).toEqual(['judge', 'judge', 'probe']);
  });

  it("asks the baseline beside the probe when another policy served the call", async () => {
    const { s, ctx, told, sent } = rig({ small: 'Oslo', big: 'Oslo', judge });
    await learnFrom(ctx, s, signal(), planOf({ probe: ['small'], probing: 'model:small' }), servedBy('tiny', 'Oslo'));
    expect(sent.map((r) => r.model)).toEqual(['small', 'big']);
    expect(probeOf(told)).not.toHaveProperty('call'); // the client did not get the baseline's answer: its outcome says nothing of it
  });

  it('records nothing when a probe fails, or when the judge gives no grade', async () => {
    const failed = rig({ small: { status: 503 }, judge });
    await learnFrom(failed.ctx, failed.s, signal(), planOf({ probe: ['small'], probing: 'model:small' }), servedBy('big', 'Oslo'));
    expect(failed.ops()).toEqual([]);
    expect(failed.sent.map((r) => r.model)).toEqual(['small']);
    const mute = rig({ small: 'Bergen', judge: 'I would rather not say' });
    await learnFrom(mute.ctx, mute.s, signal(), planOf({ probe: ['small'], probing: 'model:small' }), servedBy('big', 'Oslo'));
    expect(mute.ops()).toEqual([]);
  });

  it("grades a settled step's served answer as a drift check, with the events it raises", async () => {
    const { s, ctx, told } = rig({ judge });
    await learnFrom(ctx, s, signal(), planOf({ check: true, policy: { kind: 'model', model: 'small' } }), servedBy('small', 'Bergen'));
    expect(told).toEqual([{ op: 'recordServed', args: [step, expect.objectContaining({ policy: 'model:small', score: 0.1, source: 'judge' })] }]);
    expect(ctx.events.map((e) => e.kind)).toEqual(['drift']);
  });

  it('checks nothing once its signal has aborted (shutdown)', async () => {
    const { s, ctx, sent } = rig({ judge });
    const stop = new AbortController();
    stop.abort();
    await learnFrom(ctx, s, stop.signal, planOf({ check: true }), servedBy('big', 'Oslo'));
    expect(sent).toEqual([]);
  });
});
