import { describe, expect, it } from 'vitest';
import { cleanRows, subsample, type Models, type Row } from './data.ts';
import { parseJudgeCall, verdict } from './judge.ts';
import type { CallRecord } from './phases.ts';
import { mulberry32 } from './prng.ts';
import { knownMix, oneModelPerStep, oracle, retention, saving } from './reference.ts';
import { phaseMetrics } from './report.ts';

// Prices per million tokens; every answer uses 100 prompt tokens and none for completion, so a
// call costs 100 × input price / 1e6: base 1e-3, mid 2e-4, cheap 1e-4.
const models: Models = {
  baseline: 'base',
  models: {
    base: { input_per_mtok: 10, output_per_mtok: 30 },
    mid: { input_per_mtok: 2, output_per_mtok: 6 },
    cheap: { input_per_mtok: 1, output_per_mtok: 3 },
  },
};

let n = 0;
function row(step: string, split: 'train' | 'test', scores: { base: number; mid: number; cheap: number }): Row {
  const id = `${step}/${split}/${n++}`;
  const answers: Row['answers'] = {};
  for (const [m, score] of Object.entries(scores)) answers[m] = { text: `${m} says ${score} on ${id}`, score, usage: { prompt_tokens: 100, completion_tokens: 0 } };
  return { id, step, split, messages: [{ role: 'user', content: `question ${id}` }], answers };
}

// Step a: on train, mid holds the baseline's score everywhere (retention 1) and cheap holds 3/4.
// Step b: on train, mid holds 1/2 and cheap nothing.
const train = [
  row('a', 'train', { base: 1, mid: 1, cheap: 1 }),
  row('a', 'train', { base: 1, mid: 1, cheap: 1 }),
  row('a', 'train', { base: 1, mid: 1, cheap: 1 }),
  row('a', 'train', { base: 1, mid: 1, cheap: 0 }),
  row('b', 'train', { base: 1, mid: 1, cheap: 0 }),
  row('b', 'train', { base: 1, mid: 0, cheap: 0 }),
];
const test = [
  row('a', 'test', { base: 1, mid: 1, cheap: 0 }),
  row('a', 'test', { base: 0, mid: 1, cheap: 0 }),
  row('b', 'test', { base: 1, mid: 1, cheap: 1 }),
  row('b', 'test', { base: 1, mid: 0, cheap: 0 }),
];

describe('retention and saving', () => {
  it('divides the served mean score by the baseline mean score over the same calls', () => {
    expect(retention([1, 0, 1, 1], [1, 1, 1, 0])).toBeCloseTo(1);
    expect(retention([1, 0, 0, 1], [1, 1, 1, 1])).toBeCloseTo(0.5);
  });

  it('can exceed one when the served model beats the baseline', () => {
    expect(retention([1, 1], [1, 0])).toBeCloseTo(2);
  });

  it('is undefined (null) when the baseline scored nothing', () => {
    expect(retention([1, 0], [0, 0])).toBeNull();
  });

  it('refuses served and baseline scores of different lengths', () => {
    expect(() => retention([1], [1, 1])).toThrow();
  });

  it('is one minus the actual cost over the baseline cost, and zero when the baseline cost nothing', () => {
    expect(saving(25, 100)).toBeCloseTo(0.75);
    expect(saving(150, 100)).toBeCloseTo(-0.5);
    expect(saving(0, 0)).toBe(0);
  });
});

describe('the one-model-per-step reference line', () => {
  it('picks the cheapest model holding the floor on train for each step, else the baseline', () => {
    const r = oneModelPerStep(train, test, models, 0.95);
    expect(r.per_step.a!.chosen).toBe('mid');
    expect(r.per_step.a!.train_retention).toBeCloseTo(1);
    expect(r.per_step.b!.chosen).toBe('base');
  });

  it('measures the choice on test: saving from recorded costs, retention from recorded scores', () => {
    const r = oneModelPerStep(train, test, models, 0.95);
    // Test cost: a 2 × 2e-4 (mid) + b 2 × 1e-3 (base) = 2.4e-3 against 4e-3 for the baseline.
    expect(r.saving).toBeCloseTo(0.4);
    // Served scores a [1, 1] + b [1, 1] = 4 against the baseline's a [1, 0] + b [1, 1] = 3.
    expect(r.retention).toBeCloseTo(4 / 3);
    expect(r.per_step.a!.saving).toBeCloseTo(0.8);
    expect(r.per_step.b!.saving).toBeCloseTo(0);
  });

  it('takes a cheaper model once the floor drops to its train retention', () => {
    const r = oneModelPerStep(train, test, models, 0.75);
    expect(r.per_step.a!.chosen).toBe('cheap');
    expect(r.per_step.a!.train_retention).toBeCloseTo(0.75);
    expect(r.per_step.b!.chosen).toBe('base');
  });

  it('keeps the baseline for a step with no train rows', () => {
    const r = oneModelPerStep(
      train.filter((x) => x.step === 'a'),
      test,
      models,
      0.95,
    );
    expect(r.per_step.b!.chosen).toBe('base');
  });
});

describe('the per-prompt oracle', () => {
  it('serves each prompt the cheapest model with the baseline score and never loses quality', () => {
    const r = oracle(test, models);
    // a1 mid 2e-4 (cheap scored 0), a2 cheap 1e-4 (baseline scored 0), b1 cheap 1e-4, b2 base 1e-3.
    expect(r.saving).toBeCloseTo(1 - 1.4e-3 / 4e-3);
    expect(r.retention).toBeCloseTo(1);
  });
});

describe('the measured phase metrics', () => {
  const rec = (step: string, served: string | null, score: number, baselineScore: number, cost: { b: number; a: number; e?: number }): CallRecord => ({
    phase: 'test',
    rowId: `${step}-${served}-${score}`,
    step,
    served,
    trial: null,
    policy: served === null ? null : `model:${served}`,
    score,
    baselineScore,
    unmatched: false,
    baseline_cost: cost.b,
    actual_cost: cost.a,
    exploration_cost: cost.e ?? 0,
    cache_hit: false,
    replay_cost: cost.a,
    replay_baseline_cost: cost.b,
    vendor_cost: cost.a,
    reported: false,
    error: served === null ? 'boom' : null,
    afterDrift: false,
  });

  it('computes saving, retention and the most served model per step, counting a failed call as score 0', () => {
    const m = phaseMetrics([
      rec('a', 'cheap', 1, 1, { b: 10, a: 1 }),
      rec('a', 'cheap', 0, 1, { b: 10, a: 1, e: 0.5 }),
      rec('a', 'base', 1, 1, { b: 10, a: 10 }),
      rec('b', null, 0, 1, { b: 0, a: 0 }),
      rec('b', 'mid', 1, 1, { b: 10, a: 2 }),
    ]);
    expect(m.per_step.a!.chosen).toBe('cheap');
    expect(m.per_step.a!.retention).toBeCloseTo(2 / 3);
    expect(m.per_step.a!.saving).toBeCloseTo(1 - 12 / 30);
    expect(m.per_step.b!.retention).toBeCloseTo(0.5);
    expect(m.per_step.b!.errors).toBe(1);
    expect(m.retention).toBeCloseTo(3 / 5);
    expect(m.saving).toBeCloseTo(1 - 14 / 40);
    expect(m.exploration_cost).toBeCloseTo(0.5);
  });
});

describe('the replay data and judge', () => {
  it('leaves out rows lacking a model and train rows repeating a test prompt', () => {
    const missing = row('a', 'train', { base: 1, mid: 1, cheap: 1 });
    delete missing.answers.cheap;
    const repeat = { ...row('a', 'train', { base: 1, mid: 1, cheap: 1 }), messages: test[0]!.messages };
    const d = cleanRows([...train, ...test, missing, repeat], models);
    expect(d.rows).toHaveLength(train.length + test.length);
    expect(d.dropped).toHaveLength(2);
  });

  it('subsamples each split stratified by step, keeping at least one row per step', () => {
    const picked = subsample(train, 3, mulberry32(7));
    expect(picked).toHaveLength(3);
    expect(new Set(picked.map((r) => r.step))).toEqual(new Set(['a', 'b']));
  });

  it('recognizes a judge call by its rubric and reads the judged request and answer', () => {
    const payload = JSON.stringify({ request: test[0]!.messages, answer: 'mid says 1' });
    expect(parseJudgeCall([{ role: 'system', content: 'You are a strict grader. Answer JSON.' }, { role: 'user', content: payload }])).toEqual({ request: test[0]!.messages, answer: 'mid says 1' });
    expect(parseJudgeCall([{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: payload }])).toBeNull();
    expect(parseJudgeCall([{ role: 'system', content: 'You are a strict grader.' }, { role: 'user', content: 'not json' }])).toBeNull();
  });

  it('grades an answer with its recorded score, 0 for an unknown text, and flips every verdict at noise 1', () => {
    const r = test[0]!;
    expect(verdict(r.answers, `  ${r.answers.mid!.text}\n`, 0, 1, r.id, 0)).toMatchObject({ truth: 1, score: 1, matched: 'mid' });
    expect(verdict(r.answers, r.answers.cheap!.text, 0, 1, r.id, 0)).toMatchObject({ truth: 0, score: 0 });
    expect(verdict(r.answers, 'something else', 0, 1, r.id, 0)).toMatchObject({ truth: 0, score: 0, matched: undefined });
    expect(verdict(r.answers, r.answers.mid!.text, 1, 1, r.id, 0)).toMatchObject({ truth: 1, score: 0, flipped: true });
  });
});

describe('the known-mix reference line', () => {
  // Step m: mid right on 9 of 10 (retention 0.9), cheap on 5. Step g: each right on 5 of 10. On
  // both, mid and cheap say the same thing exactly where both are right.
  function pair(step: string, split: 'train' | 'test', mid: number, cheap: number, same: boolean): Row {
    const r = row(step, split, { base: 1, mid, cheap });
    if (same) r.answers.cheap!.text = r.answers.mid!.text;
    return r;
  }
  const rows = (split: 'train' | 'test') => [
    ...Array.from({ length: 10 }, (_, i) => pair('m', split, i < 9 ? 1 : 0, i < 5 ? 1 : 0, i < 5)),
    ...Array.from({ length: 10 }, (_, i) => pair('g', split, i < 5 ? 1 : 0, i < 5 ? 1 : 0, i < 5)),
  ];

  it('mixes a policy under the floor plus the mix margin with one over it, chosen on train', () => {
    const r = knownMix(rows('train'), rows('test'), models, 0.95);
    // m: the gate cheap|mid (they agree only where both are right: retention 1) saves
    // 1 − (10 × 3e-4 + 5 × 1e-3) / 1e-2 = 0.2 alone; mid (0.9) beside it on (1 − 0.96) / (1 − 0.9) = 40 %
    // of calls saves 0.4 × 0.8 + 0.6 × 0.2 = 0.44, more than mid beside the baseline (0.4 × 0.8 = 0.32)
    expect(r.per_step.m!.policy).toBe('mid');
    expect(r.per_step.m!.beside).toBe('cheap|mid');
    expect(r.per_step.m!.share).toBeCloseTo(0.4);
    expect(r.per_step.m!.train_retention).toBeCloseTo(0.96);
    expect(r.per_step.m!.saving).toBeCloseTo(0.44);
    expect(r.per_step.m!.retention).toBeCloseTo(0.96);
    // g: either model alone (0.5) beside the gate could serve only 8 % of calls, under the 10 % a mix
    // needs; the gate alone holds 1.0 and saves 0.2
    expect(r.per_step.g!.policy).toBe('cheap|mid');
    expect(r.per_step.g!.share).toBe(1);
    expect(r.per_step.g!.beside).toBe('');
    expect(r.per_step.g!.saving).toBeCloseTo(0.2);
    expect(r.per_step.g!.retention).toBeCloseTo(1);
    expect(r.saving).toBeCloseTo(0.32);
  });

  it('keeps the baseline where no policy saves, and is measured on test', () => {
    const worse = rows('test').map((r) => ({ ...r, answers: { ...r.answers, mid: { ...r.answers.mid!, score: 0 } } }));
    const r = knownMix(rows('train'), worse, models, 0.95);
    // chosen on train as before; on test mid is always wrong, so step m loses the 40 % it serves
    // (the gate beside it still serves only answers both got right: none now, so the baseline's)
    expect(r.per_step.m!.retention).toBeCloseTo(0.6);
    const none = knownMix(rows('train').map((r) => ({ ...r, answers: { ...r.answers, mid: { ...r.answers.mid!, score: 0 }, cheap: { ...r.answers.cheap!, score: 0 } } })), rows('test'), models, 0.95);
    expect(none.per_step.m!.policy).toBe('base');
    expect(none.saving).toBeCloseTo(0);
  });
});
