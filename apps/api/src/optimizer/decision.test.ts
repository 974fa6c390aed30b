// A model proven where no outcomes come keeps being graded on a share of the answers it serves
// (decision.ts, `confirms`): the samples that proved it were gathered while the step chose whom to
// try by what it had seen, and only fresh ones, graded whatever they look like, confirm the proof.
import { describe, expect, it } from 'vitest';
import { CONFIRM_SAMPLES, CONFIRM_SHARE, confirms, retentionOf } from './decision.ts';
import type { DecideInput } from './decide-input.ts';
import type { PolicyStats, Probe } from './evidence.ts';
import { Optimizer } from './optimizer.ts';

const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'silent', label: 'silent', release: '' };
const input = (draw: number): DecideInput => ({ step, baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: false, draw, learning: 'serve', priceShares: { small: 0.05 }, strengthShares: { small: 0.9 }, judgeShare: 1 });
const stats = (n: number): PolicyStats => ({ n, retention: 1, lcb: 0.97, ucb: 1.03, costMicros: 50, costUcbMicros: 55 });
const small = { kind: 'model' as const, model: 'small' };

describe('confirming a proof where no outcomes come', () => {
  it('grades a share of a proven model’s calls, drawn apart from its evidence, until it has twice a proof’s samples', () => {
    const draws = Array.from({ length: 1000 }, (_, i) => i / 1000);
    const share = draws.filter((d) => confirms(small, stats(40), input(d))).length / draws.length;
    expect(share).toBeGreaterThan(CONFIRM_SHARE - 0.03);
    expect(share).toBeLessThan(CONFIRM_SHARE + 0.03);
    expect(draws.some((d) => confirms(small, stats(CONFIRM_SAMPLES), input(d)))).toBe(false);
    // the baseline is what every policy is measured against; a gate's two answers are not kept with the call
    expect(draws.some((d) => confirms({ kind: 'model', model: 'big' }, stats(40), input(d)))).toBe(false);
    expect(draws.some((d) => confirms({ kind: 'gate', a: 'small', b: 'tiny' }, stats(40), input(d)))).toBe(false);
  });

  it('asks for the served answer to be graded on a step settled on a model its judged probes proved, and stops once confirmed', () => {
    const o = new Optimizer({} as never, {} as never);
    // forty-five probes where the small model agreed with the baseline, the baseline graded right at random
    const probe = (i: number): Probe => ({ at: i, policy: 'model:small', baselineSampled: true, baselineScore: 1, baselineText: 'A', baselineCostMicros: 1000, answers: { small: { text: 'A', score: null, costMicros: 50 } } });
    const decide = (calls: number) => {
      const confirmed: string[] = [];
      for (let i = 0; i < calls; i++) {
        o.noteCall(step, 1000, 1000);
        const d = o.decide(input(((i * 7919) % 1000) / 1000));
        if (d.confirm) confirmed.push(`${d.confirm} ${d.policy.kind === 'model' ? d.policy.model : ''} ${d.reasons.at(-2) ?? ''}`);
      }
      return confirmed;
    };
    for (let i = 0; i < 45; i++) o.recordProbe(step, probe(i));
    // a quarter of the calls, once the step knows no outcomes come (its twentieth call) and its learning room pays a grade
    const first = decide(200);
    expect(first.length).toBeGreaterThan(20);
    expect(first.length).toBeLessThan(0.3 * 200);
    expect(first[0]).toMatch(/^model:small small confirming its proof \(45 of 80 samples, no outcomes come\)/);
    for (let i = 45; i < CONFIRM_SAMPLES; i++) o.recordProbe(step, probe(i));
    expect(decide(200)).toEqual([]);
  });
});

describe('the retention a call earns the risk budget at', () => {
  it("is the mix's bound under a mix, on its baseline side too: that side's surplus already pays for the cheaper side's shortfall", () => {
    const big = { kind: 'model' as const, model: 'big' };
    expect(retentionOf(big, input(0), undefined)).toBe(1);
    expect(retentionOf(small, input(0), 0.97)).toBe(0.97);
    expect(retentionOf(big, input(0), undefined, 0.955)).toBe(0.955);
    expect(retentionOf(small, input(0), 0.97, 0.955)).toBe(0.955);
  });
});
