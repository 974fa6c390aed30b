// Trials on a step whose calls get no outcomes (serve-trial.ts, `silentTrials`): a trial there
// teaches only if its answer is graded after it is sent, so it is graded while the step's learning
// room pays for it; past that, only a candidate with graded evidence is tried ungraded, and its
// trials stay within twice its graded samples.
import { describe, expect, it } from 'vitest';
import type { PolicyStats } from './evidence.ts';
import { policyKey } from './policies.ts';
import { KNOWN_SPREAD, silentTrials, triable, UNGRADED_AFTER } from './serve-trial.ts';
import { MIN_EVIDENCE } from './exploration.ts';
import { newLedger, spend } from './trials.ts';

const stats = (n: number): PolicyStats => ({ n, retention: 1, lcb: 0.9, ucb: 1.1, costMicros: 10, costUcbMicros: 12 });
const model = { kind: 'model' as const, model: 'cheap' };
const gate = { kind: 'gate' as const, a: 'cheap', b: 'other' };

describe('trials where no outcomes come', () => {
  it("grade the trial's answer while the step's learning room pays for the side call and the grades", () => {
    const ledger = newLedger();
    expect(silentTrials(500, 400, ledger).grade).toBe(true);
    expect(silentTrials(300, 400, ledger).grade).toBe(false);
    // graded, a candidate with no evidence yet may be tried: its grade is its evidence
    expect(silentTrials(500, 400, ledger).allow(model, stats(0))).toBe(true);
  });

  it('try a candidate ungraded only on graded evidence of its own, and never more than twice its samples', () => {
    const ledger = newLedger();
    const spent = silentTrials(0, 400, ledger);
    expect(spent.allow(model, stats(0))).toBe(false); // its posterior would be its prior alone
    expect(spent.allow(model, stats(UNGRADED_AFTER - 1))).toBe(false);
    expect(spent.allow(model, stats(UNGRADED_AFTER))).toBe(true);
    for (let i = 0; i < 2 * UNGRADED_AFTER; i++) spend(ledger, 'model:cheap');
    expect(silentTrials(0, 400, ledger).allow(model, stats(UNGRADED_AFTER))).toBe(false);
    expect(silentTrials(0, 400, ledger).allow(model, stats(UNGRADED_AFTER + 1))).toBe(true);
  });

  it("never try a gate: its two answers are not kept with the call, so its trial could not be graded", () => {
    expect(silentTrials(1e9, 1, newLedger()).allow(gate, stats(100))).toBe(false);
  });
});

describe('a trial', () => {
  it("answers its call without becoming the step's choice: the step view, the report and a settled step's keep read what serves apart from trials", async () => {
    const { Optimizer } = await import('./optimizer.ts');
    const o = new Optimizer({} as never, {} as never);
    const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'choice', label: 'choice', release: '' };
    for (let i = 0; i < 20; i++) o.recordServed(step, { at: Date.now(), policy: 'model:big', score: 1, source: 'outcome' }, 'big', 0.95);
    let trials = 0;
    for (let i = 0; i < 400 && trials < 3; i++) {
      o.noteCall(step, 1000, 1000);
      const d = o.decide({ step, baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: false, draw: ((i * 7919) % 1000) / 1000, learning: 'serve', priceShares: { small: 0.05 }, strengthShares: { small: 0.9 }, judgeShare: 1 });
      if (!d.trial) continue;
      trials++;
      expect(policyKey(d.policy)).toBe('model:small');
      expect(o.stepStates('wf').find((v) => v.label === 'choice')?.chosen).toBe('model:big');
    }
    expect(trials).toBe(3);
  });
});

describe("a trial's reasons", () => {
  it('say how many outcomes on its earlier trials the posterior read, before they count as samples', async () => {
    const { Optimizer } = await import('./optimizer.ts');
    const o = new Optimizer({} as never, {} as never);
    const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'answers', label: 'answers', release: '' };
    const input = (draw: number) => ({ step, baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: false, draw, learning: 'serve' as const, priceShares: { small: 0.05 }, strengthShares: { small: 0.65 }, judgeShare: 1 });
    for (let i = 0; i < 20; i++) o.recordServed(step, { at: Date.now(), policy: 'model:big', score: i % 5 === 0 ? 0 : 1, source: 'outcome' }, 'big', 0.95);
    for (let i = 0; i < 6; i++) o.recordServed(step, { at: Date.now(), policy: 'model:small', score: 1, source: 'outcome' }, 'big', 0.95);
    const reasons: string[] = [];
    for (let i = 0; i < 400 && reasons.length === 0; i++) {
      o.noteCall(step, 1000, 1000);
      const d = o.decide(input(((i * 7919) % 1000) / 1000));
      if (d.trial) reasons.push(d.reasons[0]!);
    }
    // six right answers against a baseline right four times in five contradict a prior of 0.65: the reasons say the evidence stands alone
    expect(reasons[0]).toMatch(/^served small to learn: unproven \(retention \d\.\d\d ± \d\.\d\d, 0 samples, 6 outcomes on its trials, its prior overruled by the step's evidence\)/);
    // three wrong answers bring its outcomes back within reach of the prior (6 of 9 against 0.8): the prior stays overruled
    for (let i = 0; i < 3; i++) o.recordServed(step, { at: Date.now(), policy: 'model:small', score: 0, source: 'outcome' }, 'big', 0.95);
    for (let i = 0; i < 400 && reasons.length === 1; i++) {
      o.noteCall(step, 1000, 1000);
      const d = o.decide(input(((i * 104729) % 1000) / 1000));
      if (d.trial) reasons.push(d.reasons[0]!);
    }
    expect(reasons[1]).toMatch(/^served small to learn: unproven \(retention 0\.8\d ± \d\.\d\d, 0 samples, 9 outcomes on its trials, its prior overruled by the step's evidence\)/);
  });
});

describe("a candidate's past trials", () => {
  it('are priced by its own evidence once that evidence knows it, not as answers that were all wrong', async () => {
    const { Optimizer } = await import('./optimizer.ts');
    const o = new Optimizer({} as never, {} as never);
    const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'known', label: 'known', release: '' };
    const input = (cheaper: string[], draw: number) => ({ step, baseline: 'big', cheaper, floor: 0.95, allowGates: false, draw, learning: 'serve' as const, priceShares: { small: 0.05, mid: 0.3 }, strengthShares: { small: 0.9, mid: 0.95 }, judgeShare: 1 });
    const outcome = (policy: string, score: number) => o.recordServed(step, { at: Date.now(), policy, score, source: 'outcome' }, 'big', 0.95);
    for (let i = 0; i < 40; i++) outcome('model:big', i % 10 === 0 ? 0 : 1);
    let small = 0;
    for (let i = 0; i < 600 && small < 12; i++) {
      o.noteCall(step, 1000, 1000);
      if (o.decide(input(['small'], ((i * 7919) % 1000) / 1000)).trial) small++;
    }
    expect(small).toBe(12);
    // its outcomes now know it (known: no longer on trial), a little under the bar
    for (let i = 0; i < 60; i++) outcome('model:small', i % 5 === 0 ? 0 : 1);
    const mid: string[] = [];
    for (let i = 0; i < 30; i++) {
      o.noteCall(step, 1000, 1000);
      const d = o.decide(input(['small', 'mid'], ((i * 104729) % 1000) / 1000));
      if (d.trial) mid.push(d.trial.policy);
    }
    // priced as wrong answers, its twelve trials would have spent the budget for hundreds of calls
    expect(mid.length).toBeGreaterThan(0);
    expect(new Set(mid)).toEqual(new Set(['model:mid']));
  });
});

describe('a candidate on trial', () => {
  /** Statistics on `n` samples with one standard error `se` either side of 1. */
  const read = (n: number, se: number): PolicyStats => ({ n, retention: 1, lcb: 1 - se, ucb: 1 + se, costMicros: 10, costUcbMicros: 12 });

  it('stays on trial past the samples a proof needs while its evidence does not decide, where outcomes come', () => {
    // better-cheaper: mixtral on 50 samples, its judge grades, outcomes and probes apart (1.16 ± 0.27): serving it is still how it is learned
    expect(triable(model, read(MIN_EVIDENCE + 10, 0.27), true)).toBe(true);
    expect(triable(gate, read(MIN_EVIDENCE + 10, KNOWN_SPREAD + 0.01), true)).toBe(true);
  });

  it('is known at the samples a proof needs where no outcomes come: its trials are graded at a probe\'s price', () => {
    expect(triable(model, read(MIN_EVIDENCE + 10, 0.27), false)).toBe(false);
    expect(triable(model, read(MIN_EVIDENCE - 1, 0.27), false)).toBe(true);
  });

  it('is known once its samples and its spread both say so, and a verify policy is never tried', () => {
    expect(triable(model, read(MIN_EVIDENCE - 1, 0.01), true)).toBe(true);
    expect(triable(model, read(MIN_EVIDENCE, KNOWN_SPREAD - 0.01), true)).toBe(false);
    expect(triable({ kind: 'verify', model: 'cheap' }, read(0, 1), true)).toBe(false);
  });
});
