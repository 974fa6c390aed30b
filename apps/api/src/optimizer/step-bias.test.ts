// The catalog's bias on one step (step-bias.ts): evidence on some of the step's models moves where
// its untried ones start, and a step without evidence starts where the catalog puts it.
import { describe, expect, it } from 'vitest';
import { StepEvidence } from './evidence.ts';
import type { PolicyStats } from './evidence-types.ts';
import type { DecideInput } from './decide-input.ts';
import { trialPrior, type TrialContext } from './serve-trial.ts';
import { BIAS_SD, biasedStart, OWN_SD, stepBias } from './step-bias.ts';
import { TRIAL_PRIOR_SD } from './trials.ts';

describe("the catalog's bias on a step", () => {
  it('is none before evidence, and the start keeps the catalog prior and its whole spread', () => {
    expect(stepBias([])).toEqual({ mean: 0, sd: BIAS_SD });
    const start = biasedStart(0.575, []);
    expect(start.mean).toBe(0.575);
    expect(start.sd).toBeCloseTo(TRIAL_PRIOR_SD, 10);
  });

  it('moves every untried model by what the measured ones read over their shares, and narrows its spread toward OWN_SD', () => {
    // mbpp on the routing data: HumanEval shares put claude-instant at 0.63 and claude-v1 at 0.67; the step keeps 0.88 and 0.87
    const readings = [
      { model: 'instant', share: 0.631, r: 0.88, se: 0.04 },
      { model: 'v1', share: 0.669, r: 0.87, se: 0.04 },
    ];
    const start = biasedStart(0.575, readings);
    expect(start.mean).toBeGreaterThan(0.575 + 0.15);
    expect(start.mean).toBeLessThan(0.575 + 0.25);
    expect(start.sd).toBeLessThan(TRIAL_PRIOR_SD);
    expect(start.sd).toBeGreaterThan(OWN_SD);
  });

  it('moves little on a reading that says little', () => {
    const vague = stepBias([{ model: 'instant', share: 0.6, r: 1.0, se: 0.5 }]);
    const sure = stepBias([{ model: 'instant', share: 0.6, r: 1.0, se: 0.02 }]);
    expect(vague.mean).toBeLessThan(0.1);
    expect(sure.mean).toBeGreaterThan(0.2);
    // and it goes down as readily as up: a step where the catalog flatters its models
    expect(stepBias([{ model: 'instant', share: 0.9, r: 0.6, se: 0.02 }]).mean).toBeLessThan(-0.15);
  });
});

describe("where a trial's candidate starts on a step (serve-trial.ts)", () => {
  const stats = (retention: number, se: number, n: number): PolicyStats => ({ n, retention, lcb: retention - se, ucb: retention + se, costMicros: 10, costUcbMicros: 10 });
  const context = (measured: Record<string, PolicyStats>) =>
    ({
      evidence: new StepEvidence(),
      stats: new Map(Object.entries(measured)),
      input: { baseline: 'base', strengthShares: { cheap: 0.575, instant: 0.631, v1: 0.669 } } as unknown as DecideInput,
    }) as unknown as TrialContext;

  it("starts an untried model higher when the step's other models keep more than their shares say, and not on its own evidence", () => {
    const cheap = { kind: 'model' as const, model: 'cheap' };
    const none = trialPrior(cheap, context({ 'model:cheap': stats(0, 0, 0) }));
    expect(none.mean).toBeCloseTo(0.575);
    expect(none.sd).toBeCloseTo(TRIAL_PRIOR_SD);
    const others = trialPrior(cheap, context({ 'model:cheap': stats(0, 0, 0), 'model:instant': stats(0.88, 0.04, 60), 'model:v1': stats(0.87, 0.04, 60) }));
    expect(others.mean).toBeGreaterThan(0.72);
    // its own reading is its evidence, counted in its posterior: it does not move its own start
    const own = trialPrior(cheap, context({ 'model:cheap': stats(0.95, 0.02, 60) }));
    expect(own.mean).toBeCloseTo(0.575);
    // the baseline's own retention (1 by definition) says nothing of the catalog
    const base = trialPrior(cheap, context({ 'model:cheap': stats(0, 0, 0), 'model:base': stats(1, 0.01, 100) }));
    expect(base.mean).toBeCloseTo(0.575);
  });
});
