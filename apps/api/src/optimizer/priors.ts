// What a tenant's other steps say about a candidate policy: a prior per (tenant, step
// kind, policy) that each step's own estimate shrinks toward. The prior's spread is the
// spread between steps (their estimates' variance less their own noise), so steps that
// disagree share little, and steps that agree let a new or small step confirm a
// candidate with a few probes instead of proving it from nothing.
import { byPrecision, conflicts } from './estimates.ts';

export interface Estimate {
  retention: number;
  /** Standard error of `retention`. */
  se: number;
  n: number;
}

export interface Prior {
  mean: number;
  /** The spread of the candidate's retention between steps. */
  tau: number;
  steps: number;
}

/** Samples a step needs before its estimate says anything of the candidate for others. */
const MIN_STEP_SAMPLES = 20;
/** Steps needed before their spread can be told from their noise. */
const MIN_STEPS = 3;
/** The least spread between steps assumed, however alike they look. */
const MIN_TAU = 0.03;

/** The random-effects prior from other steps' estimates; null with too few. */
export function pool(estimates: readonly Estimate[]): Prior | null {
  const xs = estimates.filter((e) => e.n >= MIN_STEP_SAMPLES && e.se > 0);
  if (xs.length < MIN_STEPS) return null;
  const plain = xs.reduce((a, e) => a + e.retention, 0) / xs.length;
  const between = xs.reduce((a, e) => a + (e.retention - plain) ** 2, 0) / (xs.length - 1);
  const noise = xs.reduce((a, e) => a + e.se * e.se, 0) / xs.length;
  const tau = Math.max(MIN_TAU, Math.sqrt(Math.max(0, between - noise)));
  const w = xs.map((e) => 1 / (e.se * e.se + tau * tau));
  const wsum = w.reduce((a, b) => a + b, 0);
  const mean = xs.reduce((a, e, i) => a + w[i]! * e.retention, 0) / wsum;
  // the mean itself is uncertain: widen the prior by its standard error
  return { mean, tau: Math.sqrt(tau * tau + 1 / wsum), steps: xs.length };
}

/**
 * The step's own estimate shrunk toward the prior (precision-weighted); its own without one, or
 * when the two conflict (beyond `CONFLICT_Z`). The prior is pooled from the other steps only, so
 * their spread cannot show that this one is unlike them: three steps where a cheap model holds at
 * 0.98 pulled a fourth's 0.54 (contract clauses it misreads) up far enough to serve it on a
 * quarter of calls.
 */
export function posterior(own: Estimate, prior: Prior | null): Estimate {
  if (!prior) return own;
  if (own.n === 0) return { retention: prior.mean, se: prior.tau, n: 0 };
  if (Number.isFinite(own.se) && conflicts({ r: own.retention, se: own.se }, { r: prior.mean, se: prior.tau })) return own;
  const post = byPrecision([{ r: own.retention, se: own.se }, { r: prior.mean, se: prior.tau }]);
  return { retention: post.r, se: post.se, n: own.n };
}
