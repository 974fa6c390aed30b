// The round plan alternates the counts so drift cancels within a cycle, and the ratios are taken
// per cycle against that cycle's one-replica rounds.
import { describe, expect, it } from 'vitest';
import type { LatencySummary } from '../overhead/stats.ts';
import { renderRounds, scaleOutVerdicts } from './report.ts';
import { cycleRatios, labelsOf, loneLabel, roundPlan, type RoundResult } from './rounds.ts';

function round(index: number, replicas: number, ratePerSec: number, cpu: number): RoundResult {
  return {
    index,
    replicas,
    ratePerSec,
    label: ratePerSec === 200 ? String(replicas) : loneLabel(ratePerSec),
    cpuUsPerCall: { total: cpu, replicas: cpu, haproxy: 0, postgres: 0, redis: 0 },
  } as RoundResult;
}

describe('scale rounds', () => {
  it('plans the counts up then down per cycle, lone replicas at rate/N in the middle', () => {
    expect(roundPlan([4, 1, 2], 2, 200, false).map((r) => r.replicas)).toEqual([1, 2, 4, 4, 2, 1, 1, 2, 4, 4, 2, 1]);
    const solo = roundPlan([1, 2, 4], 1, 200, true);
    expect(solo.map((r) => `${r.replicas}@${r.ratePerSec}`)).toEqual(['1@200', '2@200', '4@200', '1@50', '1@100', '1@100', '1@50', '4@200', '2@200', '1@200']);
    expect(solo.map((r) => r.label)).toEqual(['1', '2', '4', '1 @ 50/s', '1 @ 100/s', '1 @ 100/s', '1 @ 50/s', '4', '2', '1']);
  });

  it('scales the load with the count: N replicas take N times one replica\'s rate, a lone replica all of it', () => {
    const plan = roundPlan([1, 2, 4], 1, 100, true, 'scaled');
    expect(plan.map((r) => `${r.replicas}@${r.ratePerSec}`)).toEqual(['1@100', '2@200', '4@400', '1@400', '1@200', '1@200', '1@400', '4@400', '2@200', '1@100']);
    expect(plan.map((r) => r.label)).toEqual(['1', '2', '4', '1 @ 400/s', '1 @ 200/s', '1 @ 200/s', '1 @ 400/s', '4', '2', '1']);
    // the main series first by count (its base, "1", is the lowest rate here), then the lone rounds
    const rounds = plan.map((p, i) => ({ ...round(i, p.replicas, p.ratePerSec, 1000), label: p.label }));
    expect(labelsOf(rounds)).toEqual(['1', '2', '4', '1 @ 400/s', '1 @ 200/s']);
    expect(cycleRatios(rounds, plan.length, (r) => r.cpuUsPerCall.total).map((q) => q.median)).toEqual([1, 1, 1, 1, 1]);
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

describe('scale-out verdicts', () => {
  const plan = roundPlan([1, 2, 4], 2, 50, false, 'scaled');
  const make = (over: Partial<Record<number, { cpu?: number; pg?: number; redis?: number; p50?: number }>>) =>
    plan.map((p, i) => {
      const o = over[p.replicas] ?? {};
      return { ...round(i, p.replicas, p.ratePerSec, o.cpu ?? 3000), label: p.label, latency: { p50: o.p50 ?? 2.5 }, pgXactsPerCall: o.pg ?? 0.17, redisPerCall: o.redis ?? 2.01 } as RoundResult;
    });
  const verdicts = (rounds: RoundResult[]) => scaleOutVerdicts(rounds, cycleRatios(rounds, plan.length / 2, (r) => r.cpuUsPerCall.total));

  it('passes flat figures and names each count that misses', () => {
    expect(verdicts(make({ 2: { cpu: 3100 }, 4: { cpu: 3400 } }))).toEqual([]);
    const failed = verdicts(make({ 4: { cpu: 3600, pg: 0.4, redis: 2.6 }, 2: { p50: 12 } }));
    expect(failed).toHaveLength(4);
    expect(failed.filter((l) => l.startsWith('4 replicas'))).toHaveLength(3);
    expect(failed.find((l) => l.includes('CPU per call 1.'))).toContain('1.20×');
    expect(failed.find((l) => l.startsWith('2 replicas'))).toContain('saturated');
  });

  it('judges only scale-out runs: a fixed total rate reports its ratios', () => {
    const fixed = roundPlan([1, 2, 4], 1, 200, false, 'fixed').map((p, i) => ({ ...round(i, p.replicas, p.ratePerSec, p.replicas === 4 ? 4500 : 3000), label: p.label, latency: { p50: 2 }, pgXactsPerCall: 0.05 * p.replicas, redisPerCall: 2, idleMsPerSec: { total: 10 }, ledger: { problems: [] }, sent: 1, ok: 1 }) as unknown as RoundResult);
    const out = renderRounds(fixed, fixed.length, { p50: 1 } as LatencySummary, { ratePerSec: 200, load: 'fixed' }, {});
    expect(out.failed).toEqual([]);
    expect(out.text).toContain('1.50×');
    expect(renderRounds(fixed, fixed.length, { p50: 1 } as LatencySummary, { ratePerSec: 200, load: 'scaled' }, {}).failed.join('\n')).toContain('4 replicas: CPU per call 1.50×');
  });
});
