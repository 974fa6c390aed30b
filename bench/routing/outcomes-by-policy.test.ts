import { describe, expect, it } from 'vitest';
import { outcomesByPolicy, outcomesLines } from './outcomes-by-policy.ts';
import type { CallRecord } from './phases.ts';

const call = (step: string, policy: string | null, score: number, baselineScore: number, reported = true) => ({ step, policy, score, baselineScore, reported }) as CallRecord;

describe('outcomes by the policy that served', () => {
  it("counts only reported, routed calls, and reads each policy's retention paired with the baseline on the same rows", () => {
    const records = [
      call('wino', 'gate:a+b', 1, 1),
      call('wino', 'gate:a+b', 0, 1),
      call('wino', 'gate:a+b', 1, 0), // the gate right where the baseline was wrong
      call('wino', 'gate:a+b', 1, 1, false), // no outcome reported: not counted
      call('wino', 'model:big', 1, 1),
      call('wino', null, 0, 1), // not routed
      call('arc', 'model:small', 0, 1),
    ];
    const by = outcomesByPolicy(records);
    expect(by.wino).toEqual({ 'gate:a+b': { n: 3, retention: 2 / 2, baseline_accuracy: 2 / 3 }, 'model:big': { n: 1, retention: 1, baseline_accuracy: 1 } });
    expect(by.arc).toEqual({ 'model:small': { n: 1, retention: 0, baseline_accuracy: 1 } });
    expect(Object.keys(outcomesByPolicy(records, 2))).toEqual(['wino']);
    expect(outcomesLines(outcomesByPolicy(records, 2))).toEqual(['wino: gate:a+b 1.000 on 3 (baseline right on 0.667)']);
  });
});
