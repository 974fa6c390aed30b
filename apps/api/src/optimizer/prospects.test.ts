import { describe, expect, it } from 'vitest';
import type { DecideInput } from './decide-input.ts';
import { StepEvidence } from './evidence.ts';
import { probeCosts, prospect } from './prospects.ts';

const step = { accountId: 'acct', workflowId: 'wf', fingerprint: 'f', label: 'f', release: '' };
const input: DecideInput = { step, baseline: 'big', cheaper: ['a', 'b'], floor: 0.95, allowGates: true, draw: 0.5, priceShares: { a: 0.03, b: 0.04 }, judgeShare: 1 };
const gate = { kind: 'gate' as const, a: 'a', b: 'b' };
const none = { n: 0, retention: 1, lcb: 0, ucb: 2, costMicros: Infinity, costUcbMicros: Infinity };
const traffic = { calls: 100, baselineMicros: 100_000, actualMicros: 100_000, exploredMicros: 0, outcomes: 30 };

/** A probe of model `a` whose baseline answer is `text`. */
const probe = (text: string) => ({ at: Date.now(), policy: 'model:a', baselineScore: null, baselineText: text, baselineCostMicros: 1000, answers: { a: { text, score: null, costMicros: 30 } } });

describe("a gate's expected cost", () => {
  it('escalates a third of the time where answers are short, and every time on a step whose answers are code', () => {
    const short = new StepEvidence();
    for (let i = 0; i < 5; i++) short.addProbe(probe('B'));
    const shortGate = prospect(short, probeCosts({ evidence: short, traffic }, input), gate, none, input, 1000, true, false)!;
    expect(shortGate.costShare).toBeCloseTo(0.07 + 0.3);
    // five probes whose baseline answers are programs: two programs never read the same, so the gate never serves its own answer
    const code = new StepEvidence();
    for (let i = 0; i < 5; i++) code.addProbe(probe(`def f${i}(x):\n    return x + ${i}\n`));
    const codeGate = prospect(code, probeCosts({ evidence: code, traffic }, input), gate, none, input, 1000, true, false)!;
    expect(codeGate.costShare).toBeGreaterThan(1);
  });
});
