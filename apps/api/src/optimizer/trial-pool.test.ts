// Priors that learn across a tenant's steps (trial-pool.ts): the outcomes of a candidate's trials
// on the tenant's other steps move where a step's posterior sampling starts, by how much they
// weigh against the catalog prior, widened by how much steps differ; a step unlike them keeps the
// catalog's prior.
import { describe, expect, it } from 'vitest';
import { MIN_POOLED_OUTCOMES, MIN_POOLED_STEPS, outcomeTotals, pooledFrom, STEP_SPREAD, tenantPrior, without, type StepOutcomes } from './trial-pool.ts';

/** A step whose candidate scored `right` of `n` outcomes, beside a baseline right at `base` over `baseN` outcomes. */
function step(fingerprint: string, n: number, right: number, base = 0.8, baseN = 40): StepOutcomes {
  return { fingerprint, n, sum: right, sumSq: right, baseN, baseMean: base, baseSd: Math.sqrt(base * (1 - base)) };
}

/** Pooled over all of `steps` (the gateway pools the tenant's other steps: `without` one). */
const poolOutcomes = (steps: readonly StepOutcomes[]) => pooledFrom(outcomeTotals(steps));

describe('pooling the outcomes of other steps', () => {
  it('reads the candidate against each step’s own baseline: a ratio of totals', () => {
    // 0.6 right where the baseline is 0.8 right, and 0.45 where it is 0.6: retention 0.75 on both
    const pooled = poolOutcomes([step('a', 20, 12), step('b', 20, 12), step('c', 20, 9, 0.6)])!;
    expect(pooled.mean).toBeCloseTo(0.75, 5);
    expect(pooled.n).toBe(60);
    expect(pooled.se).toBeGreaterThan(0.03);
    expect(pooled.se).toBeLessThan(0.15);
  });

  it('says nothing on too few outcomes, too few steps, or steps whose baseline has no outcomes to read them by', () => {
    const few = MIN_POOLED_OUTCOMES - 1;
    expect(poolOutcomes([step('a', few - 2, 3), step('b', 1, 1), step('c', 1, 1)])).toBeNull();
    expect(poolOutcomes(Array.from({ length: MIN_POOLED_STEPS - 1 }, (_, i) => step(`s${i}`, 30, 20)))).toBeNull();
    expect(poolOutcomes([step('a', 30, 20), step('b', 30, 20), step('c', 30, 20, 0.8, 2)])).toBeNull();
  });

  it("takes a step's own share out of the tenant's totals: a step's prior is the other steps' evidence", () => {
    const steps = [step('a', 20, 12), step('b', 30, 25), step('c', 20, 9, 0.6), step('d', 40, 38, 0.9)];
    const others = pooledFrom(without(outcomeTotals(steps), steps[3]))!;
    const three = poolOutcomes(steps.slice(0, 3))!;
    expect(others.mean).toBeCloseTo(three.mean, 10);
    expect(others.se).toBeCloseTo(three.se, 10);
    expect(others.n).toBe(three.n);
  });

  it('keeps steps apart by at least STEP_SPREAD, and by what they measure when they differ more', () => {
    const alike = poolOutcomes([step('a', 200, 160), step('b', 200, 160), step('c', 200, 160)])!;
    expect(alike.tau).toBe(STEP_SPREAD);
    // one task where the candidate holds, two where it falls far short: the spread shows
    const unlike = poolOutcomes([step('a', 200, 160, 0.8, 400), step('b', 200, 60, 0.8, 400), step('c', 200, 70, 0.8, 400)])!;
    expect(unlike.tau).toBeGreaterThan(0.25);
  });
});

describe("a step's starting point", () => {
  const catalog = { mean: 0.65, sd: 0.2 };

  it('is the catalog prior where the other steps have nothing to say', () => {
    expect(tenantPrior(catalog, null)).toEqual({ ...catalog, pooled: false });
  });

  it('moves to what the tenant observed, never narrower than the spread between steps', () => {
    const strong = poolOutcomes([step('a', 40, 36), step('b', 40, 35), step('c', 40, 37)])!;
    const prior = tenantPrior(catalog, strong);
    expect(prior.pooled).toBe(true);
    expect(prior.mean).toBeGreaterThan(1.05);
    expect(prior.sd).toBeGreaterThanOrEqual(STEP_SPREAD);
    expect(prior.sd).toBeLessThan(catalog.sd);
  });

  it('is the catalog prior again for a step whose own outcomes conflict with the others', () => {
    const strong = poolOutcomes([step('a', 100, 90), step('b', 100, 88), step('c', 100, 92)])!;
    expect(tenantPrior(catalog, strong, { retention: 0.4, se: 0.05 })).toEqual({ ...catalog, pooled: false });
    expect(tenantPrior(catalog, strong, { retention: 1.1, se: 0.1 }).pooled).toBe(true);
  });
});

describe('a new step of a tenant whose other steps tried the candidate', () => {
  it('starts its trials where those steps left the candidate, and says so', async () => {
    const { Optimizer } = await import('./optimizer.ts');
    const o = new Optimizer({} as never, {} as never);
    const step = (label: string, accountId = 'acct') => ({ accountId, workflowId: 'wf', fingerprint: label, label, release: '' });
    const input = (label: string, draw: number, accountId?: string) => ({ step: step(label, accountId), baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: false, draw, learning: 'serve' as const, priceShares: { small: 0.05 }, strengthShares: { small: 0.65 }, judgeShare: 1 });
    // three steps where clients' outcomes say `small` answers as well as the baseline (0.8 right each)
    for (const label of ['a', 'b', 'c']) {
      for (let i = 0; i < 20; i++) o.recordServed(step(label), { at: Date.now(), policy: 'model:big', score: i % 5 === 0 ? 0 : 1, source: 'outcome' }, 'big', 0.95);
      for (let i = 0; i < 8; i++) o.recordServed(step(label), { at: Date.now(), policy: 'model:small', score: i % 5 === 0 ? 0 : 1, source: 'outcome' }, 'big', 0.95);
    }
    /** The trial reasons of `calls` decisions on a fresh step. */
    const trials = (label: string, accountId?: string) => {
      const reasons: string[] = [];
      for (let i = 0; i < 300; i++) {
        o.noteCall(step(label, accountId), 1000, 1000);
        const d = o.decide(input(label, ((i * 7919) % 1000) / 1000, accountId));
        if (d.trial) reasons.push(d.reasons[0]!);
      }
      return reasons;
    };
    const known = trials('d');
    const fresh = trials('e', 'other');
    expect(known.length).toBeGreaterThan(fresh.length);
    // the three steps' 24 outcomes (retention 1.0) move the catalog's 0.65 most of the way, and narrow it
    const [, mean, sd] = /retention (\d\.\d+) ± (\d\.\d+), 0 samples, from the tenant's other steps\)/.exec(known[0]!) ?? [];
    expect(Number(mean)).toBeGreaterThan(0.8);
    expect(Number(sd)).toBeLessThan(0.2);
    expect(Number(sd)).toBeGreaterThanOrEqual(STEP_SPREAD);
    // another tenant's steps are not this one's: there the catalog's prior stands
    expect(fresh[0]).toMatch(/retention 0\.65 ± 0\.20, 0 samples\)/);
  });
});
