import { describe, expect, it } from 'vitest';
import type { CallRecord } from './phases.ts';
import type { KnownMix, LineResult, OneModelPerStep } from './reference.ts';
import { buildResult, phaseMetrics } from './report.ts';
import { firstProvenCall, servedProven, unprovenShare, type TrialCall } from './trials.ts';

const call = (step: string, served: string | null, trial: string | null = null): TrialCall => ({ step, served, trial });

describe('the share of calls served by unproven policies', () => {
  it('counts the calls that carried x-optimizer-trial over all calls, failed ones included', () => {
    expect(unprovenShare([call('a', 'cheap', 'model:cheap'), call('a', 'base'), call('a', null), call('b', 'cheap', 'model:cheap')])).toBeCloseTo(0.5);
    expect(unprovenShare([call('a', 'base'), call('a', 'cheap')])).toBe(0);
    expect(unprovenShare([])).toBe(0);
  });
});

describe('the first call a proven cheaper policy served', () => {
  it('is a model other than the baseline without the trial header', () => {
    expect(servedProven(call('a', 'cheap'), 'base')).toBe(true);
    expect(servedProven(call('a', 'cheap', 'model:cheap'), 'base')).toBe(false);
    expect(servedProven(call('a', 'base'), 'base')).toBe(false);
    expect(servedProven(call('a', null), 'base')).toBe(false);
  });

  it('numbers each step’s calls from 1 in the order given, trials and failures counted, null when never', () => {
    const calls = [
      call('a', 'base'), // a1
      call('b', 'base'), // b1
      call('a', 'cheap', 'model:cheap'), // a2: a trial, not proven
      call('a', null), // a3: failed
      call('b', 'base'), // b2
      call('a', 'cheap'), // a4: proven
      call('a', 'cheap'), // a5
      call('c', 'cheap', 'model:cheap'), // c1: only trials
    ];
    expect(firstProvenCall(calls, 'base')).toEqual({ a: 4, b: null, c: null });
  });

  it('counts across both phases when given the tuning calls and then the measured ones', () => {
    const train = Array.from({ length: 5 }, () => call('s', 'base'));
    const test = [call('s', 'cheap', 'model:cheap'), call('s', 'cheap')];
    expect(firstProvenCall([...train, ...test], 'base')).toEqual({ s: 7 });
  });
});

describe('the phase metrics and the result line', () => {
  // A call's block says what chose the answer; vendor_cost is what the vendor was paid for its row,
  // learning after the answer included.
  let n = 0;
  const rec = (phase: 'train' | 'test', step: string, served: string, trial: string | null, score: number, cost: { answer: number; vendor: number; baseline: number }): CallRecord => ({
    phase,
    rowId: `${phase}-${step}-${n++}`,
    step,
    served,
    trial,
    policy: trial ?? `model:${served}`,
    score,
    baselineScore: 1,
    unmatched: false,
    baseline_cost: cost.baseline,
    actual_cost: cost.answer,
    exploration_cost: 0,
    cache_hit: false,
    replay_cost: cost.answer,
    replay_baseline_cost: cost.baseline,
    vendor_cost: cost.vendor,
    reported: false,
    error: null,
    afterDrift: false,
  });
  const train = [
    rec('train', 'a', 'base', null, 1, { answer: 10, vendor: 10, baseline: 10 }),
    // a trial that answered cheaply, then paid the baseline's shadow and a judge call after the answer
    rec('train', 'a', 'cheap', 'model:cheap', 1, { answer: 1, vendor: 13, baseline: 10 }),
    rec('train', 'b', 'base', null, 1, { answer: 10, vendor: 10, baseline: 10 }),
    rec('train', 'b', 'cheap', 'model:cheap', 0, { answer: 1, vendor: 1, baseline: 10 }),
  ];
  const test = [
    rec('test', 'a', 'cheap', null, 1, { answer: 1, vendor: 1, baseline: 10 }),
    rec('test', 'a', 'cheap', 'model:cheap', 0, { answer: 1, vendor: 1, baseline: 10 }),
    rec('test', 'b', 'base', null, 1, { answer: 10, vendor: 10, baseline: 10 }),
    rec('test', 'b', 'cheap', 'model:cheap', 1, { answer: 1, vendor: 1, baseline: 10 }),
  ];

  it('puts the unproven share in each phase, per step and overall', () => {
    const m = phaseMetrics(train);
    expect(m.unproven_share).toBeCloseTo(0.5);
    expect(m.per_step.a!.unproven_share).toBeCloseTo(0.5);
    expect(phaseMetrics(test).per_step.b!.unproven_share).toBeCloseTo(0.5);
  });

  it('charges the saving with everything the vendor was paid, trials and learning after the answer included', () => {
    const m = phaseMetrics(train);
    // reported from the blocks: 1 − 22 / 40; against all spend: 1 − 34 / 40
    expect(m.saving).toBeCloseTo(1 - 22 / 40);
    expect(m.true_saving).toBeCloseTo(1 - 34 / 40);
    expect(m.per_step.a!.true_saving).toBeCloseTo(1 - 23 / 20);
    // every served call counts in retention, the trial that scored 0 included
    expect(m.retention).toBeCloseTo(3 / 4);
  });

  it('writes the new figures into the one-line result', () => {
    const line: LineResult = { saving: 0, retention: 1 };
    const oneModel: OneModelPerStep = { ...line, per_step: {} };
    const mix: KnownMix = { ...line, per_step: {} };
    const r = buildResult({
      train: phaseMetrics(train),
      test: phaseMetrics(test),
      drift: undefined,
      oneModel,
      knownMix: mix,
      oracle: line,
      firstProven: firstProvenCall([...train, ...test], 'base'),
      floor: 0.95,
      outcomeRate: 0.3,
      judgeNoise: 0.1,
      seconds: 1,
    });
    expect(r.unproven_share_test).toBeCloseTo(0.5);
    expect(r.unproven_share_total).toBeCloseTo(0.5);
    expect(r.per_step.a!.unproven_share).toBeCloseTo(0.5);
    // a: base, trial (train), proven cheap at its 3rd call; b: only the baseline and trials
    expect(r.first_proven_call).toEqual({ a: 3, b: null });
    // all spend 34 + 13 against a baseline of 80; the blocks said 22 + 13
    expect(r.saving_total).toBeCloseTo(1 - 47 / 80, 4);
    expect(r.saving_test).toBeCloseTo(1 - 13 / 40, 4);
    expect(r.retention_test).toBeCloseTo(3 / 4, 4);
    expect(r.spend_after_answers).toBeCloseTo(1 - 35 / 47, 4);
  });
});
