// Learning by serving (trials.ts): posterior sampling picks which unproven candidate serves a
// call, and the quality-risk budget bounds how often. The simulations below run the rule as a
// step would, with outcomes coming back on a share of the trial calls, and check the promise
// the budget makes: the expected retention over all the step's calls, trials included, stays at
// or above the floor, whether the candidate is good, poor or hopeless.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PolicyStats } from './evidence.ts';
import { CONFLICT_Z } from './estimates.ts';
import { chooseTrial, drawnShare, drawsFrom, earn, judgePrior, MIN_TRIALS, newLedger, PROOF_MARGIN, RISK_MARGIN, riskMargin, riskSpent, SERVED_MARGIN, spend, TRIAL_PRIOR_SD, trialPosterior, type RiskLedger, type TrialCandidate } from './trials.ts';

const FLOOR = 0.95;
const model = (m: string) => ({ kind: 'model' as const, model: m });
const none: PolicyStats = { n: 0, retention: 1, lcb: 0, ucb: 2, costMicros: Infinity, costUcbMicros: Infinity };

function candidate(name: string, over: Partial<TrialCandidate> = {}): TrialCandidate {
  return { policy: model(name), stats: none, prior: { mean: 0.92, sd: TRIAL_PRIOR_SD }, costShare: 0.2, tried: MIN_TRIALS, ...over };
}

describe('the posterior', () => {
  it('is always a retention in range, whatever the evidence', () => {
    const stats = fc.record({ n: fc.integer({ min: 0, max: 500 }), retention: fc.double({ min: -5, max: 5, noNaN: true }), half: fc.double({ min: 0, max: 3, noNaN: true }) });
    fc.assert(
      fc.property(stats, fc.double({ min: -1, max: 2, noNaN: true }), ({ n, retention, half }, prior) => {
        const post = trialPosterior(candidate('m', { stats: { ...none, n, retention, lcb: retention - half, ucb: retention + half }, prior: { mean: prior, sd: TRIAL_PRIOR_SD } }));
        expect(post.mean).toBeGreaterThanOrEqual(0);
        expect(post.mean).toBeLessThanOrEqual(1.5);
        expect(post.sd).toBeGreaterThan(0);
      }),
    );
  });

  it('moves off a prior that calls the candidate weak once its own outcomes say otherwise', () => {
    const weak = candidate('m', { prior: { mean: 0.86, sd: TRIAL_PRIOR_SD } });
    const proven = trialPosterior({ ...weak, stats: { ...none, n: 40, retention: 1.3, lcb: 1.25, ucb: 1.35 } });
    expect(trialPosterior(weak).mean).toBeCloseTo(0.86);
    expect(proven.mean).toBeGreaterThan(1.15);
  });

  it("stands on the step's own evidence where it contradicts the prior beyond both errors, and combines the two otherwise", () => {
    // the catalog calls it two thirds of the baseline; its outcomes on the step read a third better than the baseline
    const wrong = trialPosterior(candidate('m', { prior: { mean: 0.65, sd: TRIAL_PRIOR_SD }, outcomes: { retention: 1.33, se: 0.15 } }));
    expect(Math.abs(1.33 - 0.65)).toBeGreaterThan(CONFLICT_Z * Math.hypot(0.15, TRIAL_PRIOR_SD));
    expect(wrong.mean).toBeCloseTo(1.33, 6);
    expect(wrong.sd).toBeCloseTo(0.15, 6);
    // evidence within reach of the prior moves it by precision, and is surer than either
    const near = trialPosterior(candidate('m', { prior: { mean: 0.65, sd: TRIAL_PRIOR_SD }, outcomes: { retention: 0.9, se: 0.15 } }));
    expect(near.mean).toBeGreaterThan(0.65);
    expect(near.mean).toBeLessThan(0.9);
    expect(near.sd).toBeLessThan(0.15);
  });
});

describe('a prior the evidence overruled', () => {
  // the catalog calls it two thirds of the baseline; its outcomes read 1.2 ± 0.24: within reach of the prior
  const wobble = candidate('m', { prior: { mean: 0.65, sd: TRIAL_PRIOR_SD }, outcomes: { retention: 1.2, se: 0.24 } });

  it('is said to be overruled when the evidence contradicts it, and not otherwise', () => {
    expect(Math.abs(1.2 - 0.65)).toBeLessThan(CONFLICT_Z * Math.hypot(0.24, TRIAL_PRIOR_SD));
    expect(trialPosterior(wobble).overrules).toBeUndefined();
    expect(trialPosterior({ ...wobble, outcomes: { retention: 1.33, se: 0.15 } }).overrules).toBe(true);
  });

  it('stays overruled: evidence that wobbles back within reach of it still stands alone', () => {
    const combined = trialPosterior(wobble);
    expect(combined.mean).toBeLessThan(0.95); // taken back, the prior would price the candidate's trials as a weak model's
    const alone = trialPosterior({ ...wobble, prior: { ...wobble.prior, overruled: true } });
    expect(alone.mean).toBeCloseTo(1.2, 6);
    expect(alone.sd).toBeCloseTo(0.24, 6);
    expect(alone.overrules).toBe(true);
    // with no evidence yet there is nothing to stand on: the prior it has
    expect(trialPosterior(candidate('m', { prior: { mean: 0.65, sd: TRIAL_PRIOR_SD, overruled: true } })).mean).toBeCloseTo(0.65, 6);
  });
});

describe('choosing a trial', () => {
  const earned = (x: number): RiskLedger => ({ ...newLedger(), earned: x });

  it('tries nothing before the step has earned a margin over the floor', () => {
    for (let i = 0; i < 200; i++) expect(chooseTrial({ candidates: [candidate('a')], servingShare: 1, floor: FLOOR, ledger: newLedger(), draw: i / 200 })).toBeNull();
  });

  it('tries only candidates cheaper than what serves now', () => {
    for (let i = 0; i < 200; i++) expect(chooseTrial({ candidates: [candidate('a', { costShare: 0.6 })], servingShare: 0.5, floor: FLOOR, ledger: earned(100), draw: i / 200 })).toBeNull();
  });

  it('tries a candidate the prior calls weak now and then, one it believes in often, and the cheapest of those drawn to hold', () => {
    const share = (c: TrialCandidate[], pick: string) => {
      let n = 0;
      for (let i = 0; i < 2000; i++) if (chooseTrial({ candidates: c, servingShare: 1, floor: FLOOR, ledger: earned(1e6), draw: (i + 0.5) / 2000 })?.candidate.policy === c.find((x) => x.policy.kind === 'model' && x.policy.model === pick)?.policy) n++;
      return n / 2000;
    };
    const weak = share([candidate('weak', { prior: { mean: 0.8, sd: TRIAL_PRIOR_SD } })], 'weak');
    const strong = share([candidate('strong', { prior: { mean: 1.0, sd: TRIAL_PRIOR_SD } })], 'strong');
    expect(weak).toBeGreaterThan(0.05);
    expect(weak).toBeLessThan(0.3);
    expect(strong).toBeGreaterThan(0.55);
    // two candidates drawn to hold: the cheaper serves
    const both = [candidate('cheap', { costShare: 0.1, prior: { mean: 1.2, sd: 0.01 } }), candidate('dear', { costShare: 0.3, prior: { mean: 1.2, sd: 0.01 } })];
    expect(share(both, 'cheap')).toBe(1);
  });

  it('tries a candidate under the floor as often as a mix with what serves would serve it, where its evidence is free', () => {
    const tried = (c: TrialCandidate, servingRetention?: number) => {
      let n = 0;
      for (let i = 0; i < 4000; i++) if (chooseTrial({ candidates: [c], servingShare: 1, servingRetention, floor: FLOOR, ledger: earned(1e6), draw: (i + 0.5) / 4000 })) n++;
      return n / 4000;
    };
    // known to sit at 0.8 (past its first trials): beside the baseline, a mix at the floor and the margin serves it on 0.045 / 0.2 of calls
    const known = candidate('m', { prior: { mean: 0.8, sd: 0.001 }, tried: MIN_TRIALS });
    const mixShare = (1 - FLOOR - SERVED_MARGIN) / (1 - 0.8);
    expect(tried(known, 1)).toBeGreaterThan(mixShare - 0.03);
    expect(tried(known, 1)).toBeLessThan(mixShare + 0.03);
    // beside a proven policy with little margin over the floor, hardly ever; beside one at the floor, never
    expect(tried(known, 0.96)).toBeLessThan(0.05);
    expect(tried(known, FLOOR)).toBe(0);
    // and its reasons say which: a mix's share, or a draw that holds alone
    const one = (c: TrialCandidate) => [...Array(200).keys()].map((i) => chooseTrial({ candidates: [c], servingShare: 1, servingRetention: 1, floor: FLOOR, ledger: earned(1e6), draw: (i + 0.5) / 200 })?.drawn).find((d) => d);
    expect(one(known)).toEqual({ as: 'mix', share: expect.closeTo(mixShare, 2) });
    expect(one(candidate('s', { prior: { mean: 1.1, sd: 0.001 }, tried: MIN_TRIALS }))).toEqual({ as: 'alone' });
    // where a trial's evidence is paid for (no outcomes come), only a draw that holds alone tries it
    expect(tried(known)).toBe(0);
  });

  it('reads a draw as the share of calls it would serve: all where it holds alone, a mix\'s share under the floor, none where what serves has no margin', () => {
    expect(drawnShare(0.97, 1, FLOOR, 0.01)).toBe(1);
    expect(drawnShare(0.9, 1, FLOOR, 0.01)).toBeCloseTo(0.4, 9);
    expect(drawnShare(0, 1, FLOOR, 0.01)).toBeCloseTo(0.04, 9);
    expect(drawnShare(0.9, FLOOR, FLOOR, 0.01)).toBe(0);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1.5, noNaN: true }), fc.double({ min: 0.9, max: 1.1, noNaN: true }), (draw, serving) => {
        const s = drawnShare(draw, serving, FLOOR, 0.01);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        // served on its share beside what serves, the two together keep the floor and the margin at that draw
        if (s < 1 && s > 0) expect(s * draw + (1 - s) * serving).toBeGreaterThanOrEqual(FLOOR + 0.01 - 1e-9);
      }),
    );
  });

  it('gives a candidate its first few trials whatever its draws, within the budget', () => {
    const hopeless = (tried: number, earned: number) => chooseTrial({ candidates: [candidate('h', { prior: { mean: 0.3, sd: 0.05 }, tried })], servingShare: 1, floor: FLOOR, ledger: { ...newLedger(), earned }, draw: 0.5 });
    expect(hopeless(0, 1e6)?.candidate.policy).toEqual(model('h'));
    expect(hopeless(0, 1e6)?.drawn).toEqual({ as: 'first' });
    expect(hopeless(MIN_TRIALS, 1e6)).toBeNull();
    expect(hopeless(0, 0.1)).toBeNull(); // the budget still decides
    // a gate is tried only when drawn to hold: its start is its two models', each of which gets its own first trials
    const gate = chooseTrial({ candidates: [candidate('g', { policy: { kind: 'gate', a: 'h', b: 'k' }, prior: { mean: 0.3, sd: 0.05 }, tried: 0 })], servingShare: 1, floor: FLOOR, ledger: { ...newLedger(), earned: 1e6 }, draw: 0.5 });
    expect(gate).toBeNull();
  });

  it('prices the trials of a candidate no longer on offer (known by its evidence, or dearer than what serves) by what is known of it', () => {
    // twelve trials of 'known', whose evidence now reads 0.93 ± 0.02; a new candidate on offer
    const ledger: RiskLedger = { ...newLedger(), earned: 3, trials: new Map([['model:known', 12]]) };
    const ask = { candidates: [candidate('new', { prior: { mean: 1.1, sd: 0.01 } })], servingShare: 1, floor: FLOOR, ledger, draw: 0.5 };
    const known = { mean: 0.93, sd: 0.02 };
    const priced = chooseTrial({ ...ask, posteriorOf: (k: string) => (k === 'model:known' ? known : undefined) });
    expect(priced?.candidate.policy).toEqual(model('new'));
    expect(priced!.spent).toBeCloseTo(12 * (FLOOR + riskMargin(ledger) - 0.93) + (FLOOR + riskMargin(ledger) - 1.1) + 1.64 * Math.hypot(12 * 0.02, 0.01), 2);
    // unknown, its trials are priced as the worst they could have been: twelve wrong answers leave no room
    expect(chooseTrial(ask)).toBeNull();
  });

  it('reads the outcomes alone where the other evidence is biased against them', () => {
    const c = candidate('m', { prior: { mean: 0.65, sd: TRIAL_PRIOR_SD }, stats: { ...none, n: 10, retention: 0.1, lcb: 0, ucb: 0.2 }, outcomes: { retention: 1.05, se: 0.15 } });
    const post = trialPosterior(c);
    expect(post.mean).toBeGreaterThan(0.85);
    // with no conflict the two are combined
    const agree = trialPosterior({ ...c, stats: { ...none, n: 10, retention: 1.0, lcb: 0.9, ucb: 1.1 } });
    expect(agree.sd).toBeLessThan(post.sd);
  });

  it('prices the trials of one candidate together: their spread adds up, it does not average out', () => {
    const ledger: RiskLedger = { ...newLedger(), trials: new Map([['model:a', 10]]) };
    const post = () => ({ mean: FLOOR + riskMargin(ledger), sd: 0.1 });
    // no shortfall on average, but ten trials of one unknown retention: 10 × 0.1 × z
    expect(riskSpent(ledger, FLOOR, post)).toBeCloseTo(1.64, 2);
  });

  it('aims SERVED_MARGIN over the floor until the step serves a proven policy, and PROOF_MARGIN more from then on', () => {
    const ledger = newLedger();
    for (let i = 0; i < 300; i++) earn(ledger, 1, FLOOR, false);
    // the baseline's calls are exact: each earns its margin over the floor less SERVED_MARGIN, and trials aim SERVED_MARGIN over the floor
    expect(ledger.earned).toBeCloseTo((1 - FLOOR - SERVED_MARGIN) * 300 * (1 - (1 - 1 / 300) ** 300), 6);
    expect(riskMargin(ledger)).toBe(SERVED_MARGIN);
    ledger.trials.set('model:a', 10);
    expect(riskSpent(ledger, FLOOR, () => ({ mean: FLOOR, sd: 0 }))).toBeCloseTo(10 * SERVED_MARGIN, 6);
    // a proven policy serves once: from then on every call, the baseline's too, earns less the whole margin, and trials aim over the floor by it
    earn(ledger, 0.97, FLOOR, true);
    expect(riskMargin(ledger)).toBe(SERVED_MARGIN + PROOF_MARGIN);
    const before = ledger.earned;
    earn(ledger, 1, FLOOR, false);
    expect(ledger.earned - before * (1 - 1 / 300)).toBeCloseTo(1 - FLOOR - RISK_MARGIN, 6);
    ledger.trials.set('model:a', 10);
    expect(riskSpent(ledger, FLOOR, () => ({ mean: FLOOR, sd: 0 }))).toBeCloseTo(10 * RISK_MARGIN, 6);
  });
});

/**
 * A step of `calls` calls: the baseline's quality `qb`, the candidate's `qc` (each a chance of a
 * right answer), outcomes on a share of calls. The candidate's evidence is its trials' outcomes
 * against the baseline's, as the step's statistics would read them. Returns the expected
 * retention over all the calls (what users got, trials included) and the trials served.
 */
function simulate(qb: number, qc: number, calls: number, outcomeRate: number, seed: number, prior = 0.89): { retention: number; trials: number; late: number } {
  const rnd = drawsFrom(seed);
  const ledger = newLedger();
  let quality = 0;
  let trials = 0;
  let late = 0;
  const base: number[] = [];
  const own: number[] = [];
  for (let i = 0; i < calls; i++) {
    const seen = candidate('c', { prior: { mean: prior, sd: TRIAL_PRIOR_SD }, tried: ledger.total.get('model:c') ?? 0 });
    if (own.length >= 3 && base.length >= 20) {
      const mb = base.reduce((a, b) => a + b, 0) / base.length;
      const mc = own.reduce((a, b) => a + b, 0) / own.length;
      const p = Math.min(Math.max(mc, 1 / (own.length + 2)), 1 - 1 / (own.length + 2));
      const se = Math.sqrt((p * (1 - p)) / own.length) / mb;
      seen.outcomes = { retention: mc / mb, se };
    }
    // as a step judges it: a prior its outcomes once contradicted stays overruled
    const c = judgePrior(ledger, 'model:c', seen);
    const t = chooseTrial({ candidates: [c], servingShare: 1, floor: FLOOR, ledger, draw: rnd() });
    const served = t ? qc : qb;
    quality += served;
    if (t) {
      trials++;
      if (i >= (calls * 3) / 4) late++;
      spend(ledger, 'model:c');
    } else earn(ledger, 1, FLOOR, false);
    if (rnd() < outcomeRate) (t ? own : base).push(rnd() < served ? 1 : 0);
  }
  return { retention: quality / calls / qb, trials, late };
}

describe('the quality-risk budget', () => {
  it('keeps the expected retention over every call at the floor, trials included, for a hopeless, a poor and a near candidate', () => {
    for (const qc of [0.05, 0.5, 0.85]) {
      // the prior errs on the kind side, by up to two of its standard deviations
      const prior = Math.min(0.89, qc / 0.9 + 2 * TRIAL_PRIOR_SD);
      const runs = Array.from({ length: 60 }, (_, seed) => simulate(0.9, qc, 400, 0.3, (seed + 1) / 61, prior));
      const under = runs.filter((r) => r.retention < FLOOR).length;
      // the promise holds with the probability the posterior gives it: with a prior this far off, at most
      // one step in ten ends under the floor, and none by more than a point or so
      expect(under / runs.length).toBeLessThanOrEqual(0.1);
      for (const r of runs) expect(r.retention).toBeGreaterThan(FLOOR - 0.02);
    }
  });

  it('serves a candidate as good as the baseline on a growing share of calls, though its prior says it is weaker', () => {
    const runs = Array.from({ length: 30 }, (_, seed) => simulate(0.6, 0.62, 800, 0.3, (seed + 1) / 31, 0.86));
    const share = runs.reduce((a, r) => a + r.trials, 0) / runs.length / 800;
    const late = runs.reduce((a, r) => a + r.late, 0) / runs.length / 200;
    expect(share).toBeGreaterThan(0.1);
    expect(late).toBeGreaterThan(share);
    for (const r of runs) expect(r.retention).toBeGreaterThan(FLOOR);
  });

  it('serves a candidate a third better than the baseline on most calls late in the step, though its prior calls it two thirds as good', () => {
    // the prior is 3.4 of its standard deviations under the truth: combined by precision with every outcome, it held trials to a third of the calls
    const runs = Array.from({ length: 30 }, (_, seed) => simulate(0.5, 0.665, 800, 0.3, (seed + 1) / 31, 0.65));
    const share = runs.reduce((a, r) => a + r.trials, 0) / runs.length / 800;
    const late = runs.reduce((a, r) => a + r.late, 0) / runs.length / 200;
    expect(share).toBeGreaterThan(0.38);
    expect(late).toBeGreaterThan(0.6);
  });
});
