// The verified record of each step's semantic hits, for tenants that set an error bound
// (`cache.semantic_error_bound`): one VerifiedThreshold per step, which says whether a would-be
// hit is served or answered upstream and compared, and the figures the dashboard and /metrics
// show. In memory, per replica: a restarted replica proves its serving range again (it serves
// less meanwhile, never more).
import { VerifiedThreshold, type Decision } from '../semantic/verified-threshold.ts';
import { stepKey } from './keys.ts';

/** Steps whose record is kept; the least recently used goes beyond it. */
const MAX_STEPS = 5_000;
/** Verified lookups kept per step. */
const MAX_RECORDS = 2_000;

export interface VerificationStats {
  bound: number;
  /** The learned threshold; null while nothing is proven (every would-be hit is verified). */
  threshold: number | null;
  verified: number;
  verified_wrong: number;
  /** Sampled checks of hits in the serving range, and how many were wrong: the observed error. */
  served_checked: number;
  served_wrong: number;
  observed_error: number | null;
}

export class SemanticVerification {
  readonly #steps = new Map<string, VerifiedThreshold>();
  readonly #sampleRate: number;
  #agree = { served: 0, unproven: 0 };
  #disagree = { served: 0, unproven: 0 };

  constructor(opts: { sampleRate?: number } = {}) {
    this.#sampleRate = opts.sampleRate ?? 0.05;
  }

  #learner(accountId: string, step: string, create?: { bound: number; floor: number }): VerifiedThreshold | undefined {
    const k = stepKey(accountId, step);
    let l = this.#steps.get(k);
    if (l) {
      this.#steps.delete(k); // most recently used last
      this.#steps.set(k, l);
      if (create) l.configure(create.bound, create.floor);
      return l;
    }
    if (!create) return undefined;
    l = new VerifiedThreshold({ bound: create.bound, floor: create.floor, sampleRate: this.#sampleRate, maxRecords: MAX_RECORDS });
    this.#steps.set(k, l);
    if (this.#steps.size > MAX_STEPS) this.#steps.delete(this.#steps.keys().next().value!);
    return l;
  }

  /** Serve, or answer upstream and compare: `floor` is the threshold the lookup used. */
  decide(accountId: string, step: string, bound: number, floor: number, similarity: number, draw?: number): Decision {
    return this.#learner(accountId, step, { bound, floor })!.decide(similarity, draw);
  }

  /** Records whether the upstream answer agreed with the cached one; `sampled` = the hit was in the serving range. */
  record(accountId: string, step: string, similarity: number, agreed: boolean, sampled: boolean): void {
    const l = this.#learner(accountId, step);
    if (!l) return;
    l.record(similarity, agreed, sampled);
    const range = sampled ? 'served' : 'unproven';
    if (agreed) this.#agree[range]++;
    else this.#disagree[range]++;
  }

  stats(accountId: string, step: string): VerificationStats | null {
    return this.#steps.get(stepKey(accountId, step))?.stats() ?? null;
  }

  /** Prometheus text: verifications by range and result, the observed error of the serving range, the loosest bound in force. */
  render(): string {
    const checked = this.#agree.served + this.#disagree.served;
    let loosest = 0;
    for (const l of this.#steps.values()) loosest = Math.max(loosest, l.bound);
    return [
      '# HELP optimizer_semantic_cache_verified_total Semantic would-be hits answered upstream and compared with the cached answer: range "unproven" (below the learned threshold) or "served" (a sampled check in the serving range).',
      '# TYPE optimizer_semantic_cache_verified_total counter',
      ...(['served', 'unproven'] as const).flatMap((r) => [
        `optimizer_semantic_cache_verified_total{range="${r}",result="agree"} ${this.#agree[r]}`,
        `optimizer_semantic_cache_verified_total{range="${r}",result="disagree"} ${this.#disagree[r]}`,
      ]),
      '# HELP optimizer_semantic_cache_verified_error Share of sampled checks in the serving range that disagreed (NaN before any): the observed error of served semantic hits.',
      '# TYPE optimizer_semantic_cache_verified_error gauge',
      `optimizer_semantic_cache_verified_error ${checked ? this.#disagree.served / checked : 'NaN'}`,
      '# HELP optimizer_semantic_cache_error_bound The loosest error bound a step with verification is held to (0 when none).',
      '# TYPE optimizer_semantic_cache_error_bound gauge',
      `optimizer_semantic_cache_error_bound ${loosest}`,
    ].join('\n');
  }
}
