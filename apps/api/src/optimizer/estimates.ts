// The arithmetic of retention estimates: means and spreads, a floor under the spread of a few
// samples, combining estimates from different graders, and reading probes linked to outcomes.
import type { Scores } from './scores.ts';

/** One-sided confidence for "holds": the lower bound at about 84 %. */
export const Z = 1.0;
/** Outcome reports the baseline needs before outcomes are compared with it. */
export const MIN_BASELINE_OUTCOMES = 20;
/** Outcome reports a policy needs before they count as evidence for it. */
const MIN_POLICY_OUTCOMES = 10;

export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The sample standard deviation of `xs` around their mean `m`. */
export function sd(xs: number[], m: number): number {
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
}

/**
 * The least spread n graded samples are taken to have: that of a failure rate of 1/(n+2)
 * (Laplace's rule). A few agreeing probes show no spread at all, yet say little: without
 * this floor, four agreeing answers would prove a model as surely as hundreds.
 */
export function leastSpread(n: number): number {
  const p = 1 / (n + 2);
  return Math.sqrt(p * (1 - p));
}

/** Estimates weighed by 1 / (se² + tau2), with the weights (the heterogeneity test of `combine` reads them). */
function weighed(parts: readonly { r: number; se: number }[], tau2 = 0): { r: number; se: number; w: number[]; wsum: number } {
  const w = parts.map((p) => 1 / (p.se * p.se + tau2));
  const wsum = w.reduce((a, b) => a + b, 0);
  return { r: parts.reduce((a, p, i) => a + w[i]! * p.r, 0) / wsum, se: 1 / Math.sqrt(wsum), w, wsum };
}

/** Estimates combined by precision alone (each weighed by 1 / se²), as if of one quantity without bias. */
export function byPrecision(parts: readonly { r: number; se: number }[]): { r: number; se: number } {
  const { r, se } = weighed(parts);
  return { r, se };
}

/**
 * Estimates of one retention from different sources (the judge's grades, the clients'
 * outcomes, a chain through another policy), combined by precision with a random-effects
 * term (DerSimonian–Laird): sources that disagree by more than their own errors allow are
 * each biased in some way, and the spread between them widens the combined bound instead of
 * being averaged away. Weighted as if independent, a chained estimate of 1.0 ± 0.01 outvoted
 * 196 outcomes at 0.94 ± 0.03, and a model 6 points under the bar served a whole step.
 */
export function combine(estimates: readonly { r: number; se: number }[]): { r: number; se: number } {
  const fixed = weighed(estimates);
  if (estimates.length < 2) return { r: fixed.r, se: fixed.se };
  const { w, wsum } = fixed;
  const q = estimates.reduce((a, e, i) => a + w[i]! * (e.r - fixed.r) ** 2, 0);
  const c = wsum - w.reduce((a, x) => a + x * x, 0) / wsum;
  const tau2 = Math.max(0, (q - (estimates.length - 1)) / c);
  const { r, se } = weighed(estimates, tau2);
  return { r, se };
}

/**
 * How many standard errors of their difference two estimates of one retention may lie apart before
 * they are taken to disagree, wherever the optimizer weighs one source against another: a proxy
 * (the judge, agreement) against the clients' outcomes, which then stand alone; a prior (the
 * catalog's, or the tenant's other steps') against the step's own evidence, which then stands alone.
 */
export const CONFLICT_Z = 2;

/** Whether two estimates lie more than CONFLICT_Z standard errors of their difference apart. */
export function conflicts(a: { r: number; se: number }, b: { r: number; se: number }): boolean {
  return Math.abs(a.r - b.r) > CONFLICT_Z * Math.sqrt(a.se * a.se + b.se * b.se);
}

/** A policy's probes that wait for outcomes: answers that agree with the baseline's, that differ and are still unresolved, and the resolved differences. */
export interface Linked {
  agree: number;
  pending: number;
  resolved: { diff: number; judged: boolean }[];
}

/** Pseudo-differences at −1 that the resolved ones are read with: a few resolved answers must not promise much. */
const PESSIMISTIC_PSEUDO = 2;

/**
 * Retention from probes linked to their calls' outcomes, read as a two-phase sample: how
 * often the answers differ is known from every probe, and what a difference is worth from
 * those whose outcome (or the judge) resolved it; a pending one is neither counted as wrong
 * (on a two-way choice where the baseline errs one time in seven, that read a model of true
 * retention 0.88 as 0.55) nor dropped. Outcomes are taken as reported independently of
 * whether the answer was right.
 */
export function linkedEstimate(l: Linked, e: number, band: { lo: number; hi: number }): { r: number; se: number; n: number } | null {
  const n = l.agree + l.pending + l.resolved.length;
  if (n === 0) return null;
  const q = (l.pending + l.resolved.length) / n;
  const diffs = l.resolved.map((x) => (x.judged ? x.diff / (1 - 2 * e) : x.diff));
  const k = diffs.length + PESSIMISTIC_PSEUDO;
  const m = (diffs.reduce((a, b) => a + b, 0) - PESSIMISTIC_PSEUDO) / k;
  const spread = diffs.length > 1 ? sd(diffs, mean(diffs)) : 1;
  const varM = Math.max(spread, leastSpread(diffs.length)) ** 2 / k;
  const d = q * m;
  const se = Math.sqrt(q * q * varM + (m * m * q * (1 - q)) / n);
  const mb = d < 0 ? band.lo : band.hi;
  return { r: 1 + d / mb, se: Math.max(se, leastSpread(n) / Math.sqrt(n)) / mb, n };
}

/** Outcome-based retention: the policy's mean outcome over the baseline's, once both have enough reports. */
export function outcomeRetention(outcomes: number[], base: Scores, least = MIN_POLICY_OUTCOMES): { r: number; se: number; n: number } | null {
  if (outcomes.length < least || base.length < MIN_BASELINE_OUTCOMES) return null;
  const mo = mean(outcomes);
  const mbo = base.mean();
  if (mbo <= 0) return null;
  const r = mo / mbo;
  // the delta method for a ratio of two independent means
  const seO = Math.max(sd(outcomes, mo), leastSpread(outcomes.length)) / Math.sqrt(outcomes.length);
  const seB = Math.max(base.sd(), 0.05) / Math.sqrt(base.length);
  return { r, se: Math.sqrt(seO * seO + r * r * seB * seB) / mbo, n: outcomes.length };
}
