// Exploration as an investment, the cheap judge's panel, shared priors, and evidence from
// outcomes: the rules that keep learning from costing more than it saves.
import { describe, expect, it } from 'vitest';
import { bestLevel, levelFloor, MIN_PAYBACK, payback, planExploration, probesByCase, type ExploreInput, type Prospect } from '../src/optimizer/exploration.ts';
import { JudgePanel } from '../src/optimizer/judge-panel.ts';
import { pool, posterior } from '../src/optimizer/priors.ts';
import { combine, StepEvidence } from '../src/optimizer/evidence.ts';
import { drawsFrom } from '../src/optimizer/trials.ts';
import { cheapestMix, holdBound, MIX_MARGIN, mixKey, servesUnder } from '../src/optimizer/mix.ts';
import { gateStart, probeCosts, prospect as priceProspect } from '../src/optimizer/prospects.ts';

const prospect = (over: Partial<Prospect> = {}): Prospect => ({ key: 'model:small', models: ['small'], n: 0, retention: 0.92, se: 0.06, costShare: 0.05, probeShare: 0.05, gradesPerProbe: 0.6, ...over });
const input = (calls: number, over: Partial<ExploreInput> = {}): ExploreInput => ({
  traffic: { calls, baselineMicros: calls * 1000, spentMicros: 0, actualMicros: calls * 1000 },
  floor: 0.95,
  servingShare: 1,
  gradeShare: 1,
  budgetShare: 0.1,
  allowanceCalls: 2,
  prospects: [prospect()],
  draw: 0,
  // one candidate serving alone: the rule's mechanics; mixes have their own tests
  levels: [1],
  ...over,
});

describe('the payback rule', () => {
  it('does not explore a young step, and explores once its own traffic can pay the evidence back', () => {
    const young = planExploration(input(60));
    expect(young.probe).toBeNull();
    expect(young.reason).toMatch(new RegExp(`^no probe: payback 0\\.\\d× < ${MIN_PAYBACK}$`));
    const grown = planExploration(input(5000));
    expect(grown.probe?.key).toBe('model:small');
    expect(grown.reason).toMatch(/^explored: probed model:small \(payback [\d.]+×, rate 1\.00\)$/);
  });

  it('pays more for a likelier, cheaper, cheaper-to-prove candidate, and nothing for one no cheaper than what serves', () => {
    const base = input(2000);
    expect(payback(prospect({ retention: 0.99 }), base)).toBeGreaterThan(payback(prospect(), base));
    expect(payback(prospect(), { ...base, gradeShare: 0.02 })).toBeGreaterThan(payback(prospect(), base));
    expect(payback(prospect({ costShare: 0.5 }), { ...base, servingShare: 0.4 })).toBe(0);
  });

  it('samples a marginal investment on a share of calls and says so', () => {
    // a small saving (7 % of the baseline per call) on a step big enough to fund its proof
    const small = prospect({ costShare: 0.93 });
    // a step just old enough for its payback to clear the bar by about a half (payback grows with the step's traffic)
    const calls = Math.round((10_000 * (MIN_PAYBACK + 0.5)) / payback(small, input(10_000)));
    const marginal = planExploration(input(calls, { prospects: [small], draw: 0.99 }));
    expect(marginal.payback).toBeGreaterThan(1);
    expect(marginal.rate).toBeLessThan(1);
    expect(marginal.reason).toMatch(/^no probe: sampled out at rate 0\.\d\d \(payback [\d.]+×\)$/);
  });

  it('starts only an investment its budget can finish, and judges a candidate on the floor at where it would sit if it held', () => {
    // proving it (if it holds) takes ~0.12 USD of probes and grades; 3,000 calls leave 3 % of their baseline spend
    const short = planExploration(input(3000));
    expect(short.probe).toBeNull();
    expect(short.funded).toBe(false);
    expect(short.reason).toBe("no probe: proving model:small needs about 0.12 USD, more than the step's budget has left (0.09 USD)");
    // the same candidate without judge grades (its answers compared for free) fits in that budget
    expect(planExploration(input(3000, { prospects: [prospect({ gradesPerProbe: 0 })] })).probe?.key).toBe('model:small');
    // a candidate estimated right on the floor is either above it (and provable) or under it (and refutable), not stuck on it
    const onFloor = probesByCase(prospect({ retention: 0.95, se: 0.06 }), 0.95);
    expect(onFloor.pHolds).toBeCloseTo(0.5, 2);
    expect(onFloor.holds).toBeLessThan(400);
    expect(onFloor.holds).toBe(onFloor.fails);
    // evidence of a strong candidate: little left to prove it, a lot to refute it
    const strong = probesByCase(prospect({ n: 40, retention: 0.99, se: 0.05 }), 0.95);
    expect(strong.holds).toBeLessThan(strong.fails);
  });

  it('stops at the step budget, at a share of 0, and whenever the step already costs 3 % over its baseline', () => {
    const spent = planExploration(input(5000, { traffic: { calls: 5000, baselineMicros: 5_000_000, spentMicros: 502_000, actualMicros: 5_000_000 } }));
    expect(spent.reason).toBe('no probe: step budget 10% used');
    expect(planExploration(input(5000, { budgetShare: 0 })).reason).toBe('no probe: step budget 0% used');
    const losing = planExploration(input(5000, { traffic: { calls: 5000, baselineMicros: 5_000_000, spentMicros: 100_000, actualMicros: 5_160_000 } }));
    expect(losing.probe).toBeNull();
    expect(losing.reason).toBe('no probe: the step already costs 3% over its baseline');
  });
});

describe('the judge panel', () => {
  const flip = (x: number, e: number, r: () => number) => (r() < e ? 1 - x : x);
  /** A seeded uniform draw. */
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);

  it('adopts a cheap judge that errs like the configured one, measured by cross and self pairs alone', () => {
    const r = rng(7);
    const p = new JudgePanel('big', 'small');
    for (let i = 0; i < 200; i++) {
      const truth = r() < 0.5 ? 1 : 0;
      const cheap = flip(truth, 0.1, r);
      p.add(JudgePanel.pair('cross', flip(truth, 0.1, r), cheap));
      p.add(JudgePanel.pair('self', cheap, flip(truth, 0.1, r)));
    }
    expect(p.adopted).toBe(true);
    expect(p.errors()!.cheap).toBeGreaterThan(0.05);
    expect(p.errors()!.cheap).toBeLessThan(0.15);
  });

  it('refuses a cheap judge that passes everything, or grades at random', () => {
    const r = rng(11);
    const yes = new JudgePanel('big', 'yes');
    const coin = new JudgePanel('big', 'coin');
    for (let i = 0; i < 200; i++) {
      const truth = r() < 0.8 ? 1 : 0;
      const main = flip(truth, 0.05, r);
      yes.add(JudgePanel.pair('cross', main, 1));
      yes.add(JudgePanel.pair('self', 1, 1));
      yes.add(JudgePanel.pair('truth', truth, 1));
      const c1 = r() < 0.8 ? 1 : 0;
      coin.add(JudgePanel.pair('cross', main, c1));
      coin.add(JudgePanel.pair('self', c1, r() < 0.8 ? 1 : 0));
    }
    expect(yes.adopted).toBe(false);
    expect(coin.adopted).toBe(false);
  });

  it('adopts a cheap judge measured against outcomes, balanced over right and wrong answers', () => {
    const r = rng(3);
    const good = new JudgePanel('big', 'small');
    const bad = new JudgePanel('big', 'lax');
    for (let i = 0; i < 200; i++) {
      const truth = r() < 0.85 ? 1 : 0;
      good.add(JudgePanel.pair('truth', truth, flip(truth, 0.1, r)));
      // right on what is right, but passes most of what is wrong
      bad.add(JudgePanel.pair('truth', truth, truth === 1 ? 1 : flip(0, 0.7, r)));
    }
    expect(good.adopted).toBe(true);
    // its error (0.1 here) is taken at the cautious end of its estimate, never below
    expect(good.errors()!.cheap).toBeGreaterThan(0.1);
    expect(good.errors()!.cheap).toBeLessThan(0.25);
    expect(bad.adopted).toBe(false);
  });
});

describe('shared priors', () => {
  it('pool steps that agree into a narrow prior, and steps that disagree into a wide one', () => {
    const alike = pool([0.97, 0.975, 0.98, 0.972].map((r) => ({ retention: r, se: 0.02, n: 40 })));
    const apart = pool([0.6, 0.97, 0.8, 0.9].map((r) => ({ retention: r, se: 0.02, n: 40 })));
    expect(alike!.tau).toBeLessThan(0.04);
    expect(apart!.tau).toBeGreaterThan(0.1);
    // fewer than three steps with evidence say nothing
    expect(pool([{ retention: 0.97, se: 0.02, n: 40 }, { retention: 0.97, se: 0.02, n: 40 }])).toBeNull();
    // a small step's estimate shrinks toward the prior, more toward a narrow one
    const own = { retention: 0.9, se: 0.05, n: 15 };
    expect(posterior(own, alike).retention).toBeGreaterThan(posterior(own, apart).retention);
    expect(posterior(own, null)).toEqual(own);
  });

  it('leave a step unlike the others to its own evidence', () => {
    const alike = pool([0.98, 0.985, 0.975].map((r) => ({ retention: r, se: 0.015, n: 100 })));
    // a cheap model that misreads this step's task: far under what the others say, well beyond both spreads
    const unlike = { retention: 0.54, se: 0.08, n: 54 };
    expect(posterior(unlike, alike)).toEqual(unlike);
    // one a little under them still borrows their strength
    expect(posterior({ retention: 0.93, se: 0.04, n: 30 }, alike).retention).toBeGreaterThan(0.94);
  });
});

describe('evidence from outcomes', () => {
  const probe = (i: number, differs: boolean) => ({
    at: i,
    policy: 'model:small',
    call: `call-${i}`,
    awaitsOutcome: true,
    baselineScore: null,
    baselineText: 'B',
    baselineCostMicros: 100,
    answers: { small: { text: differs ? 'A' : 'B', score: null, costMicros: 5 } },
  });

  it('counts an ungraded probe at once, cautiously: agreeing shares the baseline\'s score, differing counts as wrong until an outcome says', () => {
    const e = new StepEvidence();
    for (let i = 0; i < 50; i++) e.addProbe(probe(i, i % 5 === 0));
    // no outcome yet: the baseline's answer is taken as right, so every differing answer (one in five) counts
    // against the candidate, over a baseline quality nothing has measured yet (read cautiously low)
    const before = e.stats({ kind: 'model', model: 'small' }, 'big');
    expect(before.n).toBe(50);
    expect(before.retention).toBeLessThanOrEqual(0.8);
    // outcomes say the baseline was wrong where they differed: those differences no longer count against it
    for (let i = 0; i < 50; i++) e.addServed({ at: i, policy: 'model:big', score: i % 5 === 0 ? 0 : 1, source: 'outcome', call: `call-${i}` }, true);
    const after = e.stats({ kind: 'model', model: 'small' }, 'big');
    expect(after.n).toBe(50);
    expect(after.retention).toBeGreaterThan(0.95);
  });

  /**
   * 600 probed calls, the candidate differing on a share `differ` of them, the baseline right with chance
   * `right.differs` where it differs and `right.agrees` where they agree; outcomes on three calls in ten, whatever
   * the answers. `shaped` gives a probe other answers than `probe`'s A and B. The candidate's statistics.
   */
  const probedStep = (seed: number, differ: number, right: { differs: number; agrees: number }, shaped = probe) => {
    const e = new StepEvidence();
    const rnd = drawsFrom(seed);
    for (let i = 0; i < 600; i++) {
      const differs = rnd() < differ;
      const baseRight = rnd() < (differs ? right.differs : right.agrees);
      e.addProbe(shaped(i, differs));
      if (rnd() < 0.3) e.addServed({ at: i, policy: 'model:big', score: baseRight ? 1 : 0, source: 'outcome', call: `call-${i}` }, true);
    }
    return e.stats({ kind: 'model', model: 'small' }, 'big');
  };

  it('reads the differences still waiting for an outcome through those that got one, not as wrong answers', () => {
    // a two-way choice and a candidate better than a baseline right about half the time: it differs on two calls in
    // five, and where it differs the baseline is wrong 65 % of the time (then the candidate, the other choice, is
    // right); where they agree the baseline is right 55 % of the time. True retention: (0.6 × 0.55 + 0.4 × 0.65) /
    // (0.6 × 0.55 + 0.4 × 0.35) = 1.255
    const st = probedStep(0.37, 0.4, { differs: 0.35, agrees: 0.55 });
    expect(st.n).toBe(600);
    // counted as wrong, the pending differences would read it near 0.66, and a differing answer where the baseline
    // was wrong counted half-way near 0.98: on a two-way question that answer is the right one
    expect(st.retention).toBeGreaterThan(1.12);
    expect(st.retention).toBeLessThan(1.4);
  });

  it('reads a differing answer half-way where the baseline was wrong and the question has more than two answers', () => {
    // four choices: the candidate differs on one call in five (its answer one of three others); the baseline is wrong on
    // a quarter of those, and the candidate right on a third of them
    const fourWay = (i: number, differs: boolean) => ({ ...probe(i, differs), baselineText: 'ABCD'[i % 4]!, answers: { small: { text: 'ABCD'[(i + (differs ? 1 + (i % 3) : 0)) % 4]!, score: null, costMicros: 5 } } });
    const st = probedStep(0.61, 0.2, { differs: 0.75, agrees: 0.9 }, fourWay);
    // the truth (0.72 + 0.2 × 0.25 / 3) / 0.87 = 0.847; half-way on the baseline's wrong answers reads a little over it
    expect(st.retention).toBeGreaterThan(0.8);
    expect(st.retention).toBeLessThan(0.9);
  });

  it('where answers are free-form, leaves a differing answer out until the judge grades it: an outcome says only whether the baseline was right', () => {
    const e = new StepEvidence();
    const code = (i: number, graded: boolean) => ({ ...probe(i, true), answers: { small: { text: `def f${i}(xs):\n    return xs[${i}]`, score: graded ? 1 : null, costMicros: 5 } }, baselineText: `def g${i}(xs):\n    return sorted(xs)[${i}]`, baselineScore: graded ? 1 : null });
    for (let i = 0; i < 30; i++) {
      e.addProbe(code(i, false));
      e.addServed({ at: i, policy: 'model:big', score: 1, source: 'outcome', call: `call-${i}` }, true);
    }
    // thirty programs that differ from the baseline's, its answers right: not thirty wrong answers
    expect(e.stats({ kind: 'model', model: 'small' }, 'big').n).toBe(0);
    for (let i = 30; i < 60; i++) e.addProbe({ ...code(i, true), awaitsOutcome: false });
    const judged = e.stats({ kind: 'model', model: 'small' }, 'big');
    expect(judged.n).toBe(30);
    expect(judged.retention).toBeGreaterThan(0.95);
  });

  it('does not take a weak model on a two-way choice for free-form answers, however often it differs', () => {
    const e = new StepEvidence();
    // it differs on three calls in five; the outcome says the baseline was right on each of them
    for (let i = 0; i < 50; i++) {
      e.addProbe(probe(i, i % 5 < 3));
      e.addServed({ at: i, policy: 'model:big', score: 1, source: 'outcome', call: `call-${i}` }, true);
    }
    const st = e.stats({ kind: 'model', model: 'small' }, 'big');
    expect(st.n).toBe(50);
    expect(st.retention).toBeLessThan(0.5);
  });

  it('knows a gate at once where its models disagree (the baseline serves) or agree with the baseline', () => {
    const e = new StepEvidence();
    for (let i = 0; i < 50; i++) {
      // a and b disagree on every fifth call (escalated to the baseline), else both agree with it
      const split = i % 5 === 0;
      e.addProbe({ at: i, policy: 'gate:a+b', call: `call-${i}`, awaitsOutcome: true, baselineScore: null, baselineText: 'B', baselineCostMicros: 100, answers: { a: { text: split ? 'A' : 'B', score: null, costMicros: 5 }, b: { text: 'B', score: null, costMicros: 5 } } });
    }
    const st = e.stats({ kind: 'gate', a: 'a', b: 'b' }, 'big');
    expect(st.n).toBe(50);
    expect(st.retention).toBe(1);
    // the same probes count against model a alone, where it differed from the baseline
    expect(e.stats({ kind: 'model', model: 'a' }, 'big').retention).toBeLessThanOrEqual(0.8);
  });
});

describe('a candidate under the bar, mixed with the baseline', () => {
  it('is proven at the share of calls where its proof pays back best, against the bar that share needs', () => {
    // a model of retention 0.92 may serve (1 − 0.95 − margin) / (1 − 0.92) of calls beside the baseline
    expect(levelFloor(0.95, 0.6)).toBeCloseTo(1 - (0.05 - MIX_MARGIN) / 0.6, 9);
    expect(levelFloor(0.95, 1)).toBeCloseTo(0.95, 9);
    const under = prospect({ n: 200, retention: 0.92, se: 0.02, gradesPerProbe: 0 });
    // alone it sits 1.5 standard errors under the bar: unlikely to hold; at 60 % or 35 % of calls it is nearly
    // proven already, and pays back more
    const level = bestLevel(under, input(3000, { levels: [1, 0.6, 0.35] }));
    expect(level.share).toBeLessThan(1);
    expect(level.payback).toBeGreaterThan(2 * payback(under, input(3000)));
    const plan = planExploration(input(3000, { prospects: [under], levels: [1, 0.6, 0.35] }));
    expect(plan.reason).toMatch(/^explored: probed model:small for (60|35)% of calls beside the baseline \(payback [\d.]+×, rate 1\.00\)$/);
  });

  it('gains only what a mix adds over what already serves', () => {
    const under = prospect({ n: 200, retention: 0.92, se: 0.02, gradesPerProbe: 0, costShare: 0.05 });
    // serving 60 % of calls on it already costs 0.6 × 0.05 + 0.4 = 0.43 of the baseline: only the move to all of them could add
    const serving = input(3000, { servingShare: 0.43, levels: [1, 0.6, 0.35] });
    expect(bestLevel(under, serving).share).toBe(1);
  });
});

describe('mixes that serve', () => {
  const weighed = (key: string, retention: number, se: number, cost: number, n = 200) => ({ policy: { kind: 'model' as const, model: key }, stats: { n, retention, lcb: retention - se, ucb: retention + se, costMicros: cost, costUcbMicros: cost } });
  const bound = (st: { retention: number; lcb: number; ucb: number }) => holdBound(st as never, 1.3, 1);

  it('give a policy under the bar the share of calls that keeps the mix at the floor, each side at its cautious bound', () => {
    const cheap = weighed('cheap', 0.9, 0.01, 50); // bound 0.887
    const m = cheapestMix([cheap], [], 0.95, 1000, 900, bound)!;
    expect(m.over).toBeNull(); // beside the baseline
    // aimed a margin over the floor
    expect(m.share).toBeCloseTo((0.05 - MIX_MARGIN) / 0.113, 3);
    expect(m.bound).toBeCloseTo(0.95 + MIX_MARGIN, 9);
    expect(m.costMicros).toBeCloseTo(m.share * 50 + (1 - m.share) * 1000, 6);
    expect(mixKey(m, 'big')).toBe(`mix:model:cheap@${m.share.toFixed(2)}|model:big`);
  });

  it('pair it with the cheapest policy that holds when that costs less than the baseline, and refuse a mix that saves nothing', () => {
    const cheap = weighed('cheap', 0.9, 0.01, 50);
    const gate = weighed('gate', 0.99, 0.005, 300); // holds at 0.9835
    const m = cheapestMix([cheap], [gate], 0.95, 1000, 900, bound)!;
    expect(m.over?.policy).toEqual(gate.policy);
    expect(m.bound).toBeCloseTo(0.95 + MIX_MARGIN, 9);
    // beaten by a cheaper holder
    expect(cheapestMix([cheap], [gate], 0.95, 1000, 100, bound)).toBeNull();
    // a policy far under the bar would get under 10 % of the calls: not a mix
    expect(cheapestMix([weighed('poor', 0.4, 0.01, 10)], [], 0.95, 1000, 900, bound)).toBeNull();
  });

  it('spread the cheaper side evenly over the calls', () => {
    const counts = { under: 0, total: 0 };
    const picks: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const u = servesUnder(counts, 0.25);
      counts.total++;
      if (u) counts.under++;
      picks.push(u);
    }
    expect(counts.under).toBe(5);
    // never two in a row at a quarter
    expect(picks.some((p, i) => p && picks[i + 1])).toBe(false);
  });
});

describe('a gate before its own probes', () => {
  it('is priced to escalate as often as cheap answers differ from the baseline, so free-form steps do not probe gates that would always escalate', () => {
    const unseen = { n: 0, retention: 1, lcb: 0, ucb: 2, costMicros: Infinity, costUcbMicros: Infinity };
    const decide = { step: { accountId: 'a', workflowId: 'w', fingerprint: 'f', label: 'f', release: '' }, baseline: 'big', cheaper: ['a', 'b'], floor: 0.95, allowGates: true, draw: 0, priceShares: { a: 0.02, b: 0.03 } };
    const gate = { kind: 'gate' as const, a: 'a', b: 'b' };
    const priced = (answer: (i: number) => string) => {
      const e = new StepEvidence();
      for (let i = 0; i < 12; i++) e.addProbe({ at: i, baselineScore: 1, baselineText: 'B', baselineCostMicros: 100, answers: { a: { text: answer(i), score: 1, costMicros: 2 } } });
      return priceProspect(e, probeCosts({ evidence: e, traffic: { calls: 100, baselineMicros: 10_000, actualMicros: 10_000, exploredMicros: 0, outcomes: 0 } }, decide), gate, unseen, decide, 100, true, false)!;
    };
    // short answers that mostly agree with the baseline's: the default escalation
    expect(priced((i) => (i % 4 ? 'B' : 'C')).costShare).toBeCloseTo(0.05 + 0.3, 6);
    // programs never read the same: the gate escalates always and saves nothing
    expect(priced((i) => `def f${i}(): pass`).costShare).toBeCloseTo(0.05 + 1, 6);
  });
});

describe('a gate whose models have evidence', () => {
  const stats = (n: number, retention: number) => ({ n, retention, lcb: retention - 0.05, ucb: retention + 0.05, costMicros: 3, costUcbMicros: 4 });
  const gate = { kind: 'gate' as const, a: 'a', b: 'b' };
  const own = (ra: number, rb: number, n = 40) => new Map([['model:a', stats(n, ra)], ['model:b', stats(n, rb)]]);

  it('starts where its two models put it: two weak ones under the bar, two strong ones over it', () => {
    expect(gateStart(gate, own(0.65, 0.66))).toBeCloseTo(1 - 0.35 * 0.34, 6); // 0.88
    expect(gateStart(gate, own(0.87, 0.94))).toBeCloseTo(1 - 0.13 * 0.06, 6); // 0.99
    // a model over the baseline leaves the gate nothing to lose; one that is always wrong leaves the other's shortfall
    expect(gateStart(gate, own(1.1, 0.7))).toBe(1);
    expect(gateStart(gate, own(-0.2, 0.7))).toBeCloseTo(0.7, 6);
    // without a few samples of each model, or for a single model, the step's general prior stands
    expect(gateStart(gate, own(0.65, 0.66, 9))).toBeNull();
    expect(gateStart({ kind: 'model', model: 'a' }, own(0.65, 0.66))).toBeNull();
    expect(gateStart(gate, undefined)).toBeNull();
  });

  it('is worth fewer probes when its models are weak than when they are strong', () => {
    const unseen = { n: 0, retention: 1, lcb: 0, ucb: 2, costMicros: Infinity, costUcbMicros: Infinity };
    const decide = { step: { accountId: 'a', workflowId: 'w', fingerprint: 'f', label: 'f', release: '' }, baseline: 'big', cheaper: ['a', 'b'], floor: 0.95, allowGates: true, draw: 0, priceShares: { a: 0.02, b: 0.03 } };
    const e = new StepEvidence();
    const costs = probeCosts({ evidence: e, traffic: { calls: 600, baselineMicros: 60_000, actualMicros: 60_000, exploredMicros: 0, outcomes: 0 } }, decide);
    const priced = (m?: ReturnType<typeof own>) => priceProspect(e, costs, gate, unseen, decide, 100, true, false, m)!;
    expect(priced(own(0.65, 0.66)).retention).toBeCloseTo(0.881, 3);
    expect(priced(own(0.87, 0.94)).retention).toBeCloseTo(0.992, 3);
    expect(priced().retention).toBeCloseTo(0.95, 3); // the general prior: the floor, less half its spread, plus a gate's lift
    const worth = (p: Prospect) => payback(p, input(600, { levels: [1, 0.6, 0.35] }));
    expect(worth(priced(own(0.65, 0.66)))).toBeLessThan(worth(priced()));
    expect(worth(priced(own(0.87, 0.94)))).toBeGreaterThan(worth(priced()));
  });
});

describe('a candidate sitting on the bar', () => {
  it('is not worth proving where its proof would take more calls than the step is expected to have left, however cheap each probe', () => {
    // 0.941 against a floor of 0.95 with the spread of 300 probes: thousands of probes to tell apart
    const onBar = prospect({ key: 'model:yi', n: 300, retention: 0.945, se: 0.25 / Math.sqrt(300), costShare: 0.08, probeShare: 0.08, gradesPerProbe: 0.1 });
    const c = probesByCase(onBar, 0.95);
    expect(c.holds).toBeGreaterThan(400); // what the old cap priced it at
    expect(payback(onBar, input(700))).toBe(0);
    expect(planExploration(input(700, { prospects: [onBar] })).probe).toBeNull();
    // beside the baseline on part of the calls it is nearly proven already: worth a few more probes there
    expect(bestLevel(onBar, input(700, { levels: [1, 0.6, 0.35] })).share).toBeLessThan(1);
  });
});

describe('retention estimates from several sources', () => {
  it('are averaged by precision when they agree', () => {
    const r = combine([
      { r: 0.97, se: 0.02 },
      { r: 0.972, se: 0.02 },
    ]);
    expect(r.r).toBeCloseTo(0.971, 6);
    expect(r.se).toBeCloseTo(0.02 / Math.SQRT2, 6);
  });

  it('widen the bound when they disagree beyond their errors, so a precise chained estimate cannot outvote the outcomes', () => {
    // 196 outcomes say 0.941; a chain through another policy says 1.0 with a small error
    const outcomes = { r: 0.941, se: 0.026 };
    const chained = { r: 1.0, se: 0.01 };
    const naiveW = [1 / outcomes.se ** 2, 1 / chained.se ** 2];
    const naive = (naiveW[0]! * outcomes.r + naiveW[1]! * chained.r) / (naiveW[0]! + naiveW[1]!);
    const naiveSe = 1 / Math.sqrt(naiveW[0]! + naiveW[1]!);
    expect(naive - 1.3 * naiveSe).toBeGreaterThan(0.95); // the old reading let it serve
    const r = combine([outcomes, chained]);
    expect(r.se).toBeGreaterThan(2 * naiveSe);
    expect(r.r - 1.3 * r.se).toBeLessThan(0.95);
  });
});

describe('a single model probed while another policy serves', () => {
  it("is compared with the served answer only where that policy's own evidence can anchor the chain; else it pays for the baseline's answer", () => {
    const unseen = { n: 0, retention: 1, lcb: 0, ucb: 2, costMicros: Infinity, costUcbMicros: Infinity };
    const decide = { step: { accountId: 'a', workflowId: 'w', fingerprint: 'f', label: 'f', release: '' }, baseline: 'big', cheaper: ['a', 'b'], floor: 0.95, allowGates: true, draw: 0, priceShares: { a: 0.02, b: 0.03 } };
    const e = new StepEvidence();
    const costs = probeCosts({ evidence: e, traffic: { calls: 600, baselineMicros: 60_000, actualMicros: 60_000, exploredMicros: 0, outcomes: 0 } }, decide);
    const model = { kind: 'model' as const, model: 'a' };
    // the baseline serves: its answer is there to compare with
    expect(priceProspect(e, costs, model, unseen, decide, 100, true, false, undefined, false)!.probeShare).toBeCloseTo(0.02, 6);
    // another policy serves with evidence of its own: chained to it, the probe pays for its own answer only
    expect(priceProspect(e, costs, model, unseen, decide, 100, false, false, undefined, true)!.probeShare).toBeCloseTo(0.02, 6);
    // a policy with too little evidence of its own anchors nothing a chain could prove: the probe pays for the baseline's too
    // (chained to it, such probes were paid for and never proved the model, and a re-opened step probed it for good)
    expect(priceProspect(e, costs, model, unseen, decide, 100, false, false, undefined, false)!.probeShare).toBeCloseTo(1.02, 6);
  });
});
