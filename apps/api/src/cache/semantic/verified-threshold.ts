// Verification-driven thresholds for the semantic cache (after vCache, arXiv 2502.03771): a
// would-be hit is served only where the neighbourhood's verified record supports the error
// bound the tenant set. A neighbourhood (one step of one tenant, or one entry) keeps the
// verified lookups it has seen — similarity and whether the cached answer was right for the
// new question (answers compared, or the judge) — and learns the lowest similarity from which
// the one-sided upper confidence bound of the wrong share stays within the bound. Below that,
// or before enough is verified, a would-be hit is *explored*: the model answers it (it is not
// served from cache) and the comparison is recorded. Above it, a sampled share is still
// verified, so a neighbourhood that drifts loses its serving range again.

import { randomInt } from 'node:crypto';

/** The default bound: at most 1 % of served hits wrong. */
export const DEFAULT_ERROR_BOUND = 0.01;

export interface VerifiedThresholdOptions {
  /** Largest share of served hits that may be wrong (default DEFAULT_ERROR_BOUND). */
  bound?: number;
  /** z of the one-sided Wilson upper bound (default 1.645: 95 %). */
  z?: number;
  /** Would-be hits below this similarity are never served nor explored (default 0.9). */
  floor?: number;
  /** Candidate thresholds are floor, floor + step, … up to 1 (default 0.0025). */
  step?: number;
  /** Share of would-be hits above the learned threshold still verified (default 0.05). */
  sampleRate?: number;
  /** Verified lookups kept, most recent (default 5,000). */
  maxRecords?: number;
}

export interface VerifiedRecord {
  similarity: number;
  correct: boolean;
}

export type Decision =
  /** Serve the cached answer. */
  | { action: 'serve'; threshold: number }
  /** Ask the model, compare its answer to the cached one and record it; serve the model's. */
  | { action: 'verify'; threshold: number; why: 'unproven' | 'sampled' }
  /** Below the floor: an ordinary miss, nothing to learn. */
  | { action: 'miss'; threshold: number };

/** One-sided Wilson score upper bound of a binomial share (`wrong` of `n`). */
export function wilsonUpper(wrong: number, n: number, z: number): number {
  if (n === 0) return 1;
  const p = wrong / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.min(1, (centre + spread) / (1 + z2 / n));
}

export class VerifiedThreshold {
  bound: number;
  readonly z: number;
  floor: number;
  readonly step: number;
  readonly sampleRate: number;
  private readonly maxRecords: number;
  private records: VerifiedRecord[] = [];
  /** Learned threshold, recomputed lazily after a new record. */
  private cached: number | undefined;
  /** Served hits that were verified, and of those wrong: the observed verified error. */
  private servedChecked = 0;
  private servedWrong = 0;

  constructor(opts: VerifiedThresholdOptions = {}) {
    this.bound = opts.bound ?? DEFAULT_ERROR_BOUND;
    if (!(this.bound > 0 && this.bound < 1)) throw new RangeError('bound must be in (0, 1)');
    this.z = opts.z ?? 1.645;
    this.floor = opts.floor ?? 0.9;
    this.step = opts.step ?? 0.0025;
    this.sampleRate = opts.sampleRate ?? 0.05;
    this.maxRecords = opts.maxRecords ?? 5_000;
  }

  /** A tenant that changes its bound (or threshold) keeps the record; the threshold is learned again from it. */
  configure(bound: number, floor: number): void {
    if (!(bound > 0 && bound < 1)) throw new RangeError('bound must be in (0, 1)');
    if (bound === this.bound && floor === this.floor) return;
    this.bound = bound;
    this.floor = floor;
    this.cached = undefined;
  }

  /**
   * The lowest candidate threshold t such that the verified lookups at similarity ≥ t are
   * within the bound at the configured confidence; Infinity while none is (nothing served).
   */
  threshold(): number {
    if (this.cached !== undefined) return this.cached;
    const sorted = [...this.records].sort((a, b) => b.similarity - a.similarity);
    // Walk thresholds from 1 down; counts at ≥ t grow as t falls.
    let best = Number.POSITIVE_INFINITY;
    let i = 0;
    let n = 0;
    let wrong = 0;
    const steps = Math.round((1 - this.floor) / this.step);
    for (let k = steps; k >= 0; k--) {
      const t = Number((this.floor + k * this.step).toFixed(6));
      while (i < sorted.length && sorted[i]!.similarity >= t) {
        n++;
        if (!sorted[i]!.correct) wrong++;
        i++;
      }
      if (n > 0 && wilsonUpper(wrong, n, this.z) <= this.bound) best = t;
    }
    this.cached = best;
    return best;
  }

  /** What to do with a would-be hit at `similarity` (guards already passed); `draw` in [0, 1). */
  decide(similarity: number, draw: number = randomInt(0, 1_000_000) / 1_000_000): Decision {
    const threshold = this.threshold();
    if (similarity < this.floor) return { action: 'miss', threshold };
    if (similarity < threshold) return { action: 'verify', threshold, why: 'unproven' };
    if (draw < this.sampleRate) return { action: 'verify', threshold, why: 'sampled' };
    return { action: 'serve', threshold };
  }

  /** Records a verification; `servable` says it was a would-be hit above the learned threshold (a sampled check). */
  record(similarity: number, correct: boolean, servable = false): void {
    this.records.push({ similarity, correct });
    if (this.records.length > this.maxRecords) this.records.splice(0, this.records.length - this.maxRecords);
    if (servable) {
      this.servedChecked++;
      if (!correct) this.servedWrong++;
    }
    this.cached = undefined;
  }

  /** The figures a tenant reads: its bound, the learned threshold and the verified error of what is served. */
  stats(): { bound: number; threshold: number | null; verified: number; verified_wrong: number; served_checked: number; served_wrong: number; observed_error: number | null } {
    const t = this.threshold();
    const wrong = this.records.filter((r) => !r.correct).length;
    return {
      bound: this.bound,
      threshold: Number.isFinite(t) ? t : null,
      verified: this.records.length,
      verified_wrong: wrong,
      served_checked: this.servedChecked,
      served_wrong: this.servedWrong,
      observed_error: this.servedChecked ? this.servedWrong / this.servedChecked : null,
    };
  }
}
