// What a step's probes say beside any one policy: how often a policy's answers differ from the
// baseline's, whether the step's answers are free-form, what the judge costs and how often it
// errs, and whether pruning keeps the step's quality.
import { leastSpread, mean, sd, Z } from './estimates.ts';
import type { Probe, ProbeAnswer, PruneStats } from './evidence-types.ts';
import type { Policy } from './policies.ts';
import { baseKey, keyOf, runsLong, same } from './stored-probe.ts';

/** Answers graded twice before the judge's error rate is estimated. */
const MIN_REGRADES = 10;
/** Beyond this error rate the judge says too little to correct for (its evidence is capped at 3× its face value). */
export const MAX_JUDGE_ERROR = 1 / 3;
/**
 * Above this share, a step's answers are free-form: of its recent baseline answers that run long
 * (`freeForm`), or, for whether probes pay the judge, of its probed answers that differ from the
 * baseline's (`judgesDisagreements` in prospects.ts).
 */
export const FREE_FORM_SHARE = 0.5;

/**
 * How often a probe of the policy needed grades: its answer differed from the baseline's
 * (for a gate: both cheap models agreed on an answer other than the baseline's).
 */
export function measureDisagreement(probes: readonly Probe[], policy: Policy): { n: number; rate: number } {
  let n = 0;
  let differ = 0;
  for (const p of probes) {
    const models = policy.kind === 'gate' ? [policy.a, policy.b] : policy.kind === 'model' || policy.kind === 'verify' ? [policy.model] : [];
    const answers = models.map((m) => p.answers[m]);
    if (models.length === 0 || answers.some((a) => !a)) continue;
    n++;
    const [a, b] = answers as ProbeAnswer[];
    if (b ? same(a!, b) && keyOf(a!) !== baseKey(p) : keyOf(a!) !== baseKey(p)) differ++;
  }
  return { n, rate: n ? differ / n : 0 };
}

/**
 * Whether the step's answers are prose or code, not a choice, a number or a short phrase:
 * most of the recent baseline answers run long or over several lines. Not how often cheap
 * answers differ: a weak model differs on half of a two-way choice, and its differing
 * answers still say something once an outcome comes. Read from `measureLongShare`.
 */
export function isFreeForm(long: { n: number; share: number }): boolean {
  return long.n >= 5 && long.share > FREE_FORM_SHARE;
}

/** The share of the recent probes (at most 20) whose baseline answer runs long (prose, code). */
export function measureLongShare(probes: readonly Probe[]): { n: number; share: number } {
  let n = 0;
  let long = 0;
  for (let i = probes.length - 1; i >= 0 && n < 20; i--) {
    const p = probes[i]!;
    if (p.reference) continue;
    n++;
    if (p.baselineLong ?? runsLong(p.baselineText ?? '')) long++;
  }
  return { n, share: n > 0 ? long / n : 0 };
}

/**
 * The share of recently probed answers that differ from the baseline's: near 1 where
 * answers are free-form (code, prose), where agreement can prove nothing.
 */
export function measureDiffering(probes: readonly Probe[]): { n: number; share: number } {
  let n = 0;
  let differ = 0;
  for (let i = probes.length - 1; i >= 0 && n < 50; i--) {
    const p = probes[i]!;
    if (p.reference) continue;
    for (const a of Object.values(p.answers)) {
      n++;
      if (keyOf(a) !== baseKey(p)) differ++;
    }
  }
  return { n, share: n ? differ / n : 0 };
}

/** What one judge grade cost as a share of a baseline answer, over the probes that paid for one; null before three. */
export function measureJudgeCost(probes: readonly Probe[]): number | null {
  let judge = 0;
  let base = 0;
  let n = 0;
  for (const p of probes) {
    if (!p.judgeCostMicros || !p.baselineCostMicros || p.reference) continue;
    judge += p.judgeCostMicros;
    base += p.baselineCostMicros;
    n++;
  }
  return n >= 3 ? judge / base : null;
}

/**
 * How often the judge gets a grade wrong, from its self-disagreement on answers graded
 * twice (2e(1 − e) for independent errors); 0 until enough answers were graded twice.
 * The point estimate: its upper bound would bias every policy down, not widen its bounds.
 */
export function measureJudgeError(probes: readonly Probe[], shared: number | undefined): number {
  const d: number[] = [];
  for (const p of probes) if (p.baselineRegrade !== undefined && p.baselineScore !== null) d.push(Math.abs(p.baselineScore - p.baselineRegrade));
  if (d.length < MIN_REGRADES) return shared ?? 0;
  const m = Math.min(0.5, mean(d));
  return Math.min(MAX_JUDGE_ERROR, (1 - Math.sqrt(1 - 2 * m)) / 2);
}

/**
 * Whether pruning keeps the step's quality: the baseline's answers to pruned requests
 * against its answers to the same requests as sent, as a retention estimate.
 */
export function measurePruning(probes: readonly Probe[], e: number, baselineMean: number): PruneStats {
  const diffs: number[] = [];
  for (const p of probes) {
    if (!p.unpruned) continue;
    if (keyOf(p.unpruned) === baseKey(p)) diffs.push(0);
    else if (p.unpruned.score !== null && p.baselineScore !== null) diffs.push((p.baselineScore - p.unpruned.score) / (1 - 2 * e));
  }
  const mb = Math.max(0, (baselineMean - e) / (1 - 2 * e));
  if (diffs.length === 0 || mb === 0) return { n: diffs.length, retention: 1, lcb: 0, ucb: 2 };
  const m = mean(diffs);
  const se = Math.max(diffs.length > 1 ? sd(diffs, m) : 1, leastSpread(diffs.length)) / Math.sqrt(diffs.length) / mb;
  const r = 1 + m / mb;
  return { n: diffs.length, retention: r, lcb: r - Z * se, ucb: r + Z * se };
}
