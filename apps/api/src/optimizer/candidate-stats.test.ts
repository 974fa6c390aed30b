import { describe, expect, it } from 'vitest';
import { priced, servingGradeShare, TenantPriors } from './candidate-stats.ts';
import type { DecideInput } from './decide-input.ts';
import { StepEvidence } from './evidence.ts';
import type { PolicyStats } from './evidence-types.ts';
import { JudgePanel } from './judge-panel.ts';
import { noteKind } from './step-kind.ts';
import { newStepState } from './step-state.ts';

const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'f', label: 'f', release: '' };
const input = (extra: Partial<DecideInput> = {}): DecideInput => ({ step, baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: true, draw: 0.5, priceShares: { small: 0.08 }, judgeShare: 1, ...extra });
const stats = (costMicros: number): PolicyStats => ({ n: 50, retention: 0.97, lcb: 0.95, ucb: 0.99, costMicros, costUcbMicros: costMicros });
const verify = { kind: 'verify' as const, model: 'small' };

describe('a candidate priced for serving', () => {
  it('costs a verify policy at least its answer and a grade by the judge that would grade it now', () => {
    // its probes were graded while a cheap judge was trusted: measured at 30 % of the baseline's cost
    const measured = stats(300);
    // that judge no longer grades: the configured one (the baseline's price) would, so serving it costs more than the baseline
    const now = servingGradeShare(new StepEvidence(), input());
    expect(now).toBe(1);
    expect(priced(measured, verify, input(), 1000, now).costMicros).toBeCloseTo(1080);
    // while the cheap judge grades, what the probes measured stands
    const panel = new JudgePanel('big', 'tiny');
    Object.defineProperty(panel, 'adopted', { get: () => true });
    const cheap = servingGradeShare(new StepEvidence(), input({ judges: { panel, cheapShare: 0.02 } }));
    expect(cheap).toBe(0.02);
    expect(priced(measured, verify, input(), 1000, cheap).costMicros).toBe(300);
  });

  it('prices a model proven by its outcomes from the catalog, and leaves a measured cost alone', () => {
    const model = { kind: 'model' as const, model: 'small' };
    expect(priced(stats(Infinity), model, input(), 1000).costMicros).toBeCloseTo(80);
    expect(priced(stats(120), model, input(), 1000).costMicros).toBe(120);
  });
});

describe("a tenant's steps sharing priors", () => {
  it('pools a step with the steps of its kind: declared, or read from what its calls ask for', () => {
    const at = Date.now();
    const state = (fingerprint: string, asked: string | undefined, kind?: string) => {
      const s = newStepState({ ...step, fingerprint, ...(kind ? { kind } : {}) }, at);
      for (let i = 0; i < 5; i++) noteKind(s.kinds, () => asked);
      s.view = [{ policy: 'model:small', n: 40, retention: fingerprint === 'chat' ? 0.97 : 0.6, lcb: 0.5, cost_share: 0.1 }];
      return s;
    };
    const code = state('code', 'code');
    const declared = state('declared', undefined, 'code');
    const chat = state('chat', undefined);
    const states = new Map([code, declared, chat].map((s) => [s.key.fingerprint, s]));
    const peers = (s: typeof code) => new TenantPriors().of(s, states).get('model:small')!.map((e) => e.fingerprint).sort();
    expect(peers(code)).toEqual(['code', 'declared']); // the question-answering step's 0.97 says nothing of code
    expect(peers(chat)).toEqual(['chat']);
  });
});
