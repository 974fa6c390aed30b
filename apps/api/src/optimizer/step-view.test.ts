import { describe, expect, it } from 'vitest';
import { Optimizer } from './optimizer.ts';

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
});
