// The round plan alternates the counts so drift cancels within a cycle, and the ratios are taken
// per cycle against that cycle's one-replica rounds.
import { describe, expect, it } from 'vitest';
import { cycleRatios, labelsOf, roundPlan, type RoundResult } from './rounds.ts';

function round(index: number, replicas: number, ratePerSec: number, cpu: number): RoundResult {
  return {
    index,
    replicas,
    ratePerSec,
    label: ratePerSec === 200 ? String(replicas) : `${replicas} @ ${ratePerSec}/s`,
    cpuUsPerCall: { total: cpu, replicas: cpu, haproxy: 0, postgres: 0, redis: 0 },
  } as RoundResult;
}

describe('scale rounds', () => {
  it('plans the counts up then down per cycle, lone replicas at rate/N in the middle', () => {
    expect(roundPlan([4, 1, 2], 2, 200, false).map((r) => r.replicas)).toEqual([1, 2, 4, 4, 2, 1, 1, 2, 4, 4, 2, 1]);
    const solo = roundPlan([1, 2, 4], 1, 200, true);
    expect(solo.map((r) => `${r.replicas}@${r.ratePerSec}`)).toEqual(['1@200', '2@200', '4@200', '1@50', '1@100', '1@100', '1@50', '4@200', '2@200', '1@200']);
  });

  it('takes each cycle against its own one-replica rounds, so a linear drift cancels', () => {
    // CPU per call drifts up by 100 µs a round; 4 replicas truly cost 1.1× one's
    const plan = roundPlan([1, 2, 4], 2, 200, true);
    const truth: Record<string, number> = { '1@200': 1000, '2@200': 1050, '4@200': 1100, '1@100': 1020, '1@50': 1040 };
    const rounds = plan.map((p, i) => round(i, p.replicas, p.ratePerSec, truth[`${p.replicas}@${p.ratePerSec}`]! + 100 * i));
    expect(labelsOf(rounds)).toEqual(['1', '2', '4', '1 @ 100/s', '1 @ 50/s']);
    const ratios = cycleRatios(rounds, plan.length / 2, (r) => r.cpuUsPerCall.total);
    const four = ratios.find((q) => q.label === '4')!;
    expect(four.perCycle).toHaveLength(2);
    // the symmetric order gives both counts the same mean drift in a cycle (450 µs in the first,
    // 1,450 in the second): only the true difference of 100 µs remains between them
    expect(four.perCycle[0]).toBeCloseTo((1100 + 450) / (1000 + 450), 6);
    expect(four.perCycle[1]).toBeCloseTo((1100 + 1450) / (1000 + 1450), 6);
    expect(four.median).toBeCloseTo((four.perCycle[0]! + four.perCycle[1]!) / 2, 6);
    expect(ratios.find((q) => q.label === '1')!.median).toBe(1);
  });
});
