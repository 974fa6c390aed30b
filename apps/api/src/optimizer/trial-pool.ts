// Priors that learn across a tenant's steps: what the clients' outcomes on a candidate's trials
// in the tenant's other steps (of the same kind) say of it, as the starting point of a step's
// posterior sampling instead of the catalog's strengths alone.
//
// A hierarchical model: a candidate's retention on one step is the tenant's level for it plus a
// step's own difference of spread τ; the tenant's level starts at the catalog prior and is moved
// by the outcomes pooled over the other steps. Pooling works where no step alone could: twenty
// steps of 130 calls each make a few trials apiece, too few outcomes for any one step to read
// (the baseline's mean takes 20 before a trial's outcome counts at all), and every trial went on
// priced at the catalog's 0.2 spread.
import { byPrecision, conflicts } from './estimates.ts';

/** One step's outcomes on a candidate's served calls and on the baseline's. */
export interface StepOutcomes {
  fingerprint: string;
  /** The candidate's outcomes: count, sum and sum of squares. */
  n: number;
  sum: number;
  sumSq: number;
  /** The baseline's outcomes on the same step: count, mean and standard deviation. */
  baseN: number;
  baseMean: number;
  baseSd: number;
}

/** Baseline outcomes a step needs before its trials' outcomes can be read against them. */
export const MIN_BASE_OUTCOMES = 5;
/** Candidate outcomes, over the other steps, before they move the prior. */
export const MIN_POOLED_OUTCOMES = 10;
/** Other steps with outcomes needed before they speak for a tenant's level: with two, one task unlike the other sets it. */
export const MIN_POOLED_STEPS = 3;
/**
 * The least spread assumed between one step and the tenant's level for a candidate, however
 * alike the steps look: a task unlike the others is caught by the conflict check, a step a
 * little unlike them by this.
 */
export const STEP_SPREAD = 0.15;
/** Candidate outcomes a step needs before its own ratio enters the estimate of the spread between steps. */
const SPREAD_OUTCOMES = 5;

export interface Pooled {
  /** Retention: the candidate's outcomes over what the baseline scores on those steps. */
  mean: number;
  se: number;
  n: number;
  /** The spread between steps: measured where enough steps have outcomes, never under STEP_SPREAD. */
  tau: number;
}

const usable = (s: StepOutcomes) => s.n > 0 && s.baseN >= MIN_BASE_OUTCOMES && s.baseMean > 0;

/**
 * What pooling needs of a set of steps, as sums (so one step's share can be taken out again):
 * the candidate's outcomes, what the baseline would score on those calls (each outcome against its
 * own step's baseline mean) and that figure's variance, and the spread between the steps.
 */
export interface OutcomeTotals {
  steps: number;
  n: number;
  sum: number;
  sumSq: number;
  /** Σ n × the step's baseline mean, and the variance of that sum from the baseline means' noise. */
  den: number;
  varDen: number;
  /** The spread between the steps (method of moments over them all), 0 before three can tell. */
  between: number;
}

const share = (s: StepOutcomes) => ({ n: s.n, sum: s.sum, sumSq: s.sumSq, den: s.n * s.baseMean, varDen: s.n * s.n * (Math.max(s.baseSd, 0.05) ** 2 / s.baseN) });

/** The totals of the steps whose outcomes can be read (their baseline has MIN_BASE_OUTCOMES). */
export function outcomeTotals(steps: Iterable<StepOutcomes>): OutcomeTotals {
  const t: OutcomeTotals = { steps: 0, n: 0, sum: 0, sumSq: 0, den: 0, varDen: 0, between: 0 };
  const xs: StepOutcomes[] = [];
  for (const s of steps) {
    if (!usable(s)) continue;
    xs.push(s);
    const x = share(s);
    t.steps++;
    t.n += x.n;
    t.sum += x.sum;
    t.sumSq += x.sumSq;
    t.den += x.den;
    t.varDen += x.varDen;
  }
  t.between = between(xs, t.n > 0 ? variance(t) : 0);
  return t;
}

/** The totals without one step's share (the step a prior is for must not be its own evidence twice). */
export function without(t: OutcomeTotals, s: StepOutcomes | undefined): OutcomeTotals {
  if (!s || !usable(s)) return t;
  const x = share(s);
  return { ...t, steps: t.steps - 1, n: t.n - x.n, sum: t.sum - x.sum, sumSq: t.sumSq - x.sumSq, den: t.den - x.den, varDen: t.varDen - x.varDen };
}

/** The candidate's outcomes' variance, pooled over the steps (at least 0.05², as a few agreeing outcomes are not certainty). */
function variance(t: OutcomeTotals): number {
  const m = t.sum / t.n;
  return Math.max(0.05 ** 2, t.sumSq / t.n - m * m);
}

/**
 * The candidate's retention over the steps totalled, or null with too few outcomes or steps: a
 * ratio of totals, its standard error by the delta method, and the spread between steps.
 */
export function pooledFrom(t: OutcomeTotals): Pooled | null {
  if (t.n < MIN_POOLED_OUTCOMES || t.steps < MIN_POOLED_STEPS || t.den <= 0) return null;
  const mean = t.sum / t.den;
  const se = Math.sqrt(t.n * variance(t) + mean * mean * Math.max(0, t.varDen)) / t.den;
  return { mean: Math.max(0, mean), se, n: t.n, tau: Math.max(STEP_SPREAD, t.between) };
}

/** The spread of the steps' own ratios beyond their noise (method of moments), 0 with fewer than three steps to tell. */
function between(xs: readonly StepOutcomes[], varC: number): number {
  const own = xs.filter((s) => s.n >= SPREAD_OUTCOMES).map((s) => ({ r: s.sum / s.n / s.baseMean, v: varC / s.n / (s.baseMean * s.baseMean) }));
  if (own.length < 3) return 0;
  const mean = own.reduce((a, o) => a + o.r, 0) / own.length;
  const spread = own.reduce((a, o) => a + (o.r - mean) ** 2, 0) / (own.length - 1);
  const noise = own.reduce((a, o) => a + o.v, 0) / own.length;
  return Math.sqrt(Math.max(0, spread - noise));
}

/**
 * Where a candidate's retention starts on a step: the catalog prior, moved toward what the
 * tenant's other steps observed (precision-weighted), widened by the spread between steps.
 * Without pooled outcomes, or when the step's own outcomes conflict with them, the catalog prior.
 */
export function tenantPrior(catalog: { mean: number; sd: number }, pooled: Pooled | null, own?: { retention: number; se: number }): { mean: number; sd: number; pooled: boolean } {
  if (!pooled) return { ...catalog, pooled: false };
  const moved = byPrecision([{ r: catalog.mean, se: catalog.sd }, { r: pooled.mean, se: pooled.se }]);
  const level = moved.r;
  const sd = Math.hypot(moved.se, pooled.tau);
  if (own && conflicts({ r: own.retention, se: own.se }, { r: level, se: sd })) return { ...catalog, pooled: false };
  return { mean: level, sd, pooled: true };
}
