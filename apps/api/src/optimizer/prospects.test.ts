// How often a gate is taken to escalate before its own probes measure it (prospects.ts,
// `gateEscalation`): read from how often each of its two models differs from the baseline; where
// a gate starts; and a candidate's estimate as the payback rule reads it.
import { describe, expect, it } from 'vitest';
import { StepEvidence, type Probe } from './evidence.ts';
import type { PolicyStats } from './evidence-types.ts';
import type { DecideInput } from './decide-input.ts';
import { GATE_ESCALATION, gateEscalation, gateRange, gateStart, prospect } from './prospects.ts';

/** A candidate's statistics on the step: its retention, one standard error either side, on `n` samples. */
const st = (retention: number, se: number, n = 40): PolicyStats => ({ n, retention, lcb: retention - se, ucb: retention + se, costMicros: 10, costUcbMicros: 10 });

/** A probe of one model on a request the baseline answered "A". */
const probe = (model: string, answer: string): Probe => ({ at: 0, policy: `model:${model}`, baselineScore: null, baselineText: 'A', baselineCostMicros: 1000, answers: { [model]: { text: answer, score: null, costMicros: 50 } } });

/** A step whose probes saw `strong` differ from the baseline on 1 request in 10 and `weak` on 4 in 10. */
function probed(times: number): StepEvidence {
  const e = new StepEvidence();
  for (let i = 0; i < times; i++) {
    e.addProbe(probe('strong', i % 10 === 0 ? 'B' : 'A'));
    e.addProbe(probe('weak', i % 10 < 4 ? 'B' : 'A'));
  }
  return e;
}

describe("a gate's escalation before its own probes", () => {
  it("is read from its two models' differing from the baseline: a strong pair escalates less than a pair with a weak model", () => {
    const e = probed(20);
    const gate = (a: string, b: string) => ({ kind: 'gate' as const, a, b });
    // two models that both agree with the baseline agree with each other: taken as independent, 0.1 + 0.4 − 0.04
    expect(gateEscalation(e, gate('strong', 'weak'), 'base')).toBeCloseTo(0.46);
    expect(gateEscalation(e, gate('strong', 'strong'), 'base')).toBeCloseTo(0.19);
    // one figure for every pair would price these two alike
    expect(gateEscalation(e, gate('strong', 'strong'), 'base')).toBeLessThan(GATE_ESCALATION);
  });

  it('is every call where answers are free-form: two programs never read the same', () => {
    const e = new StepEvidence();
    const program = (body: string): Probe => ({ ...probe('strong', `def f(x):\n    return ${body}`), baselineText: 'def f(x):\n    return x + 1' });
    for (let i = 0; i < 5; i++) e.addProbe(program(`${i} + x`));
    expect(gateEscalation(e, { kind: 'gate', a: 'strong', b: 'weak' }, 'base')).toBe(1);
  });

  it('falls back to the step-wide figure while a model has too few probes of its own', () => {
    // the step's answers differ from the baseline's on 5 of its 10 probes
    expect(gateEscalation(probed(5), { kind: 'gate', a: 'strong', b: 'strong' }, 'base')).toBe(0.5);
    expect(gateEscalation(new StepEvidence(), { kind: 'gate', a: 'strong', b: 'weak' }, 'base')).toBe(GATE_ESCALATION);
  });
});

describe("a gate's start once its two models have evidence", () => {
  const gate = { kind: 'gate' as const, a: 'mixtral', b: 'yi' };

  it('lies between errors made together (the stronger model alone) and errors made apart (the product of shortfalls)', () => {
    const own = new Map([['model:mixtral', st(0.79, 0)], ['model:yi', st(0.878, 0)]]);
    const r = gateRange(gate, own)!;
    // winogrande on the routing data: 0.878 (together) to 0.974 (apart); recorded 0.949
    expect(r.mean).toBeCloseTo((0.878 + gateStart(gate, own)!) / 2, 3);
    expect(r.mean - r.sd).toBeLessThan(0.949);
    expect(r.mean + r.sd).toBeGreaterThan(0.949);
    // far surer than an unknown model's trial prior (0.2 either side)
    expect(r.sd).toBeLessThan(0.05);
  });

  it("widens with its models' own uncertainty, and waits for both to have evidence", () => {
    const sure = gateRange(gate, new Map([['model:mixtral', st(0.9, 0.01)], ['model:yi', st(0.95, 0.01)]]))!;
    const unsure = gateRange(gate, new Map([['model:mixtral', st(0.9, 0.01)], ['model:yi', st(0.95, 0.08)]]))!;
    expect(unsure.sd).toBeGreaterThan(sure.sd + 0.05);
    expect(gateRange(gate, new Map([['model:mixtral', st(0.9, 0.01)], ['model:yi', st(0.95, 0.01, 3)]]))).toBeNull();
  });
});

describe("a candidate's estimate for the payback rule", () => {
  const input = { baseline: 'base', floor: 0.95, priceShares: { cheap: 0.02 } } as unknown as DecideInput;
  const costs = { grade: 0.1, judging: true, outcomes: 0.3 };
  const model = { kind: 'model' as const, model: 'cheap' };
  const estimate = (s: PolicyStats) => prospect(new StepEvidence(), costs, model, s, input, 1000, true, false)!;

  it('is pulled down toward the sceptical prior where a few samples read well', () => {
    expect(estimate(st(1, 0.15, 3)).retention).toBeLessThan(0.97);
  });

  it('is never lifted toward it where the step measured the candidate lower', () => {
    // mistral-7b on arc_challenge: 0.65 on 29 samples read 0.87 lifted, and was probed through the measured phase
    const low = estimate(st(0.8, 0.08, 29));
    expect(low.retention).toBe(0.8);
    expect(low.se).toBeCloseTo(0.08);
  });
});
