import { describe, expect, it } from 'vitest';
import { Optimizer } from './optimizer.ts';
import { candidateView } from './step-view.ts';

describe('the step view', () => {
  it('reads its candidates from the evidence as it is when asked: a grade that landed after the step\'s last call counts', () => {
    const o = new Optimizer({} as never, {} as never);
    const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'classify', label: 'classify', release: '' };
    const input = { step, baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: false, draw: 0.01, priceShares: { small: 0.05 }, judgeShare: 1 };
    for (let i = 0; i < 100; i++) o.noteCall(step, 1000);
    const probe = () => o.recordProbe(step, { at: Date.now(), policy: 'model:small', judgeCostMicros: 5, baselineScore: 1, baselineText: 'x', baselineCostMicros: 1000, answers: { small: { text: 'x', score: null, costMicros: 50 } } });
    const n = () => o.stepStates('wf')[0]!.candidates.find((c) => c.policy === 'model:small')?.n ?? 0;
    probe();
    o.decide(input);
    expect(n()).toBe(1);
    // learning after the answer: the probe lands once the call was decided, and no call follows
    probe();
    probe();
    expect(n()).toBe(3);
  });

  it('lists each candidate once: a cheap gate is not shown again among the gates that save', () => {
    const st = (cost: number, lcb: number) => ({ n: 10, retention: 0.96, lcb, ucb: 1, costMicros: cost, costUcbMicros: cost });
    const stats = new Map([
      ['gate:a+b', st(100, 0.9)],
      ['gate:c+d', st(300, 0.95)],
      ['model:a', st(50, 0.7)],
    ]);
    const view = candidateView(stats, 1000).map((c) => c.policy);
    expect(view.sort()).toEqual(['gate:a+b', 'gate:c+d', 'model:a']);
  });
});
