// Handing an answered routed call's learning to the queue (learning-job.ts): nothing is queued
// for a call with nothing to learn; a queued job learns, meters what it spent in a line of its
// own and settles the learning share of the reservation; a job the queue refuses or drops
// gives that share back.
import { describe, expect, it } from 'vitest';
import type { Decision } from '../optimizer/decision.ts';
import { noUsage } from '../wire/usage.ts';
import type { PipelineDeps } from './deps.ts';
import type { LearningJob } from './learning-queue.ts';
import { dropLearning, enqueueLearning } from './learning-job.ts';
import type { Named, RoutedPlan } from './routed-plan.ts';
import { callContext, completion, profile, routedServices } from '../../test/support/pipeline.ts';

const models = [profile('big', 'openai'), profile('judge', 'openai')];
const step = { accountId: 'acct_1', workflowId: 'wf_1', fingerprint: 'fp', label: 'plan', release: '' };
const plan = (decision: Partial<Decision>): RoutedPlan => ({ decision: { policy: { kind: 'model', model: 'big' }, probe: [], check: false, regrade: false, sampleBaseline: false, prune: false, pruneMinShare: 0, settled: true, reasons: [], ...decision }, step, baseline: 'big', judge: 'judge', floor: 0.9 });
const served: Named = { name: 'big', text: completion('Oslo'), answer: 'Oslo', finishReason: 'stop', status: 200, attempt: { provider: 'openai', model: 'big', profile: models[0], startedAt: new Date(), latencyMs: 5, status: 200, outcome: 'ok', usage: { ...noUsage, promptTokens: 10, completionTokens: 2 }, role: 'serve', paidBy: 'platform' } };

/** The services, with a queue that takes (or refuses) what it is offered and runs it when told. */
function rig(accepts = true) {
  const r = routedServices(models, { judge: '{"score":0.9}' });
  const offered: LearningJob[] = [];
  const s = { ...r.s, learning: { offer: (job: LearningJob) => (offered.push(job), accepts) } } as unknown as PipelineDeps;
  const ctx = callContext({ model: 'auto' });
  ctx.route = { model: 'big', provider: 'openai', requestedProvider: 'openai', profile: models[0], pinned: false, baselineModel: 'big', baselineProfile: models[0], reasons: [], failover: [] };
  ctx.learningReservation = { id: 'learning' } as never;
  ctx.priced = { baseline: 100, served: 100, actual: 100, exploration: 0, saving: 0 };
  return { ...r, s, ctx, offered };
}

describe('enqueueLearning', () => {
  it('queues nothing for a call with nothing to learn', () => {
    const { s, ctx, offered } = rig();
    expect(enqueueLearning(ctx, s, plan({}), served)).toBe(false);
    expect(offered).toEqual([]);
  });

  it('queues a job that learns, then meters and settles what it spent on the call', async () => {
    const { s, ctx, offered, told } = rig();
    expect(enqueueLearning(ctx, s, plan({ check: true }), served)).toBe(true);
    expect(told).toEqual([]); // nothing runs before the queue runs it
    await offered[0]!.run(new AbortController().signal);
    const ops = told.map((t) => t.op);
    expect(ops).toEqual(['recordServed', 'budget.settle', 'meter.recordLearning', 'noteExploration', 'discovery.charge']);
    expect(ctx.attempts.map((a) => a.role)).toEqual(['judge']); // the drift check's grade
    const [, settled] = told.find((t) => t.op === 'budget.settle')!.args as [unknown, { part: string; spend: number; callId: string }];
    expect(settled).toMatchObject({ part: 'learning', callId: ctx.id });
    const [line] = told.find((t) => t.op === 'meter.recordLearning')!.args as [{ learning: { id: string; exploration_micros: number }[]; evidence: unknown[] }];
    expect(line.learning).toEqual([expect.objectContaining({ id: ctx.id, exploration_micros: settled.spend })]);
    expect(line.evidence).toHaveLength(1);
    expect(told.find((t) => t.op === 'noteExploration')!.args).toEqual([step, settled.spend]);
    expect(ctx.learningReservation).toBeNull();
  });

  it('meters what a job spent even when its learning fails part-way', async () => {
    const { s, ctx, offered, told } = rig();
    enqueueLearning(ctx, s, plan({ probe: ['judge'], probing: 'model:judge', check: true }), served);
    s.optimizer.recordServed = () => {
      throw new Error('evidence store down');
    };
    await expect(offered[0]!.run(new AbortController().signal)).rejects.toThrow('evidence store down');
    expect(told.map((t) => t.op)).toContain('meter.recordLearning');
  });

  it('says a refused job was not queued, and its drop gives the learning share back', () => {
    const { s, ctx, offered, told } = rig(false);
    expect(enqueueLearning(ctx, s, plan({ check: true }), served)).toBe(false);
    offered[0]!.drop();
    expect(told).toEqual([{ op: 'budget.release', args: [{ id: 'learning' }] }]);
    expect(ctx.learningReservation).toBeNull();
  });
});

describe('dropLearning', () => {
  it('gives the learning share back once, and nothing when none was set apart', () => {
    const { s, ctx, told } = rig();
    dropLearning(ctx, s);
    dropLearning(ctx, s);
    expect(told.map((t) => t.op)).toEqual(['budget.release']);
  });
});
