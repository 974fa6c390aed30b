// Evidence memory per step: probes (the same request answered by candidate models
// during exploration, the distinct answers graded by the judge) and served samples
// (outcomes the client reported, judge checks, quality-gate failures). From it,
// every policy's retention of the baseline's quality is estimated with a lower
// confidence bound, and its expected cost per call.
//
// Answers are kept as the tenant's capture setting allows (storedProbe): their text only under
// capture `full`, else only what agreement compares (answerKey: the short normalized form, or a
// hash of a long one) and whether the baseline's answer ran long; the retention sweep strips
// the texts once capture's retention passes (capture/recordings.ts).
import { combine, conflicts, leastSpread, linkedEstimate, mean, MIN_BASELINE_OUTCOMES, outcomeRetention, sd, Z, type Linked } from './estimates.ts';
import type { PolicyStats, Probe, PruneStats, ServedSample } from './evidence-types.ts';
import { parsePolicy, policyKey, type Policy } from './policies.ts';
import { twoWayChoices, type TwoWay } from './answer-choices.ts';
import { gradedDiff, probedFor } from './probe-diff.ts';
import { MAX_JUDGE_ERROR, isFreeForm, measureDiffering, measureDisagreement, measureJudgeCost, measureLongShare, measureJudgeError, measurePruning } from './probe-measures.ts';
import { Scores, trimmed } from './scores.ts';

export type { PolicyStats, Probe, ProbeAnswer, PruneStats, ServedSample } from './evidence-types.ts';
export { combine, leastSpread, mean, sd } from './estimates.ts';
export { FREE_FORM_SHARE } from './probe-measures.ts';
export { SAMPLE_WINDOW } from './scores.ts';
export { storedProbe } from './stored-probe.ts';

/** Probes remembered per step while their call's outcome may still come. */
const MAX_AWAITING = 5_000;
/** Randomly sampled baseline grades before they say what the baseline's quality is. */
const MIN_BASELINE_SAMPLES = 10;

export class StepEvidence {
  probes: Probe[] = [];
  /** Graded served samples, newest last (the newest SAMPLE_WINDOW per policy, and overall). */
  served: ServedSample[] = [];
  /** Served samples ever recorded, beyond the window too. */
  servedCount = 0;
  /** The same samples by policy, so a policy's statistics read only its own. */
  readonly #servedBy = new Map<string, ServedSample[]>();
  /** Baseline quality as the judge grades it (probes, judge checks). */
  readonly #baselineScores = new Scores();
  /** Baseline quality as clients report it (outcomes while the baseline served). */
  readonly #baselineOutcomes = new Scores();
  /** Policy statistics computed since the evidence last changed. */
  readonly #stats = new Map<string, PolicyStats>();
  /** Each policy's graded differences and costs over the probes, kept until the probes change. */
  readonly #probed = new Map<string, { diffs: number[]; costs: number[]; linked: Linked }>();
  /** Each policy's share of probes that disagreed with the baseline, kept until the probes change. */
  readonly #disagreement = new Map<string, { n: number; rate: number }>();
  /** The judge's error rate from the probes, kept until the probes change. */
  #judgeError: number | undefined;
  /** Pruning's retention, kept until the evidence changes (it is read on every routed call). */
  #pruneStats: PruneStats | undefined;

  addProbe(p: Probe): void {
    this.probes.push(p);
    // learning runs after the answer: the call's outcome may have come before its probe
    const early = p.call && !p.reference ? this.#earlyOutcomes.get(p.call) : undefined;
    if (early !== undefined) {
      p.outcome = early;
      this.#earlyOutcomes.delete(p.call!);
    } else if (p.call) {
      this.#probeByCall.set(p.call, p);
      if (this.#probeByCall.size > MAX_AWAITING) this.#probeByCall.delete(this.#probeByCall.keys().next().value!);
    }
    if (p.baselineScore !== null && !p.reference && (p.policy === undefined || p.baselineSampled)) this.#baselineScores.push(p.baselineScore);
    this.#changed(true);
  }

  /** Drops what was computed from the evidence; `probes` when the probes changed too. */
  #changed(probes: boolean): void {
    this.#stats.clear();
    this.#outcomeEstimates.clear();
    this.#outcomeSums = undefined;
    this.#pruneStats = undefined;
    if (!probes) return;
    this.#probed.clear();
    this.#disagreement.clear();
    this.#judgeError = undefined;
    this.#judgeCost = undefined;
    this.#differing = undefined;
    this.#probeShape = undefined;
  }

  /** Adds a served sample; the probe made on its call, when an outcome links it to one. */
  addServed(s: ServedSample, isBaseline: boolean): Probe | undefined {
    this.served = trimmed(this.served);
    this.served.push(s);
    this.servedCount++;
    const own = this.#servedBy.get(s.policy) ?? [];
    own.push(s);
    this.#servedBy.set(s.policy, trimmed(own));
    if (isBaseline) (s.source === 'judge' ? this.#baselineScores : this.#baselineOutcomes).push(s.score);
    // the outcome of a call a probe was made on: the truth for the answer the probe compared with
    const probed = s.source === 'outcome' && s.call ? this.#probeByCall.get(s.call) : undefined;
    if (probed && !probed.reference) {
      probed.outcome = s.score;
      this.#probeByCall.delete(s.call!);
    } else if (!probed && s.source === 'outcome' && s.call) {
      this.#earlyOutcomes.set(s.call, s.score);
      if (this.#earlyOutcomes.size > MAX_AWAITING) this.#earlyOutcomes.delete(this.#earlyOutcomes.keys().next().value!);
    }
    this.#changed(probed !== undefined);
    return probed;
  }

  /** Probes still waiting for their call's outcome (the newest; older ones rarely get one). */
  readonly #probeByCall = new Map<string, Probe>();
  /** Outcomes of served calls whose probe has not been recorded yet (the newest), by call. */
  readonly #earlyOutcomes = new Map<string, number>();

  /** The baseline's mean quality as one grader sees it; outcomes fall back to the judge's view until there are enough. */
  baselineMeanBy(source: 'outcome' | 'judge' | undefined): number {
    if (source !== 'judge' && this.#baselineOutcomes.length >= MIN_BASELINE_OUTCOMES) return this.#baselineOutcomes.mean();
    return this.baselineMean();
  }

  /** Forgets what a model answered (it changed: drift), keeping everything else. */
  forgetModels(models: string[], policies: string[]): void {
    for (const p of this.probes) for (const m of models) delete p.answers[m];
    this.served = this.served.filter((s) => !policies.includes(s.policy));
    for (const p of policies) this.#servedBy.delete(p);
    this.#changed(true);
  }

  baselineMean(): number {
    if (this.#baselineScores.length === 0) return 1;
    return this.#baselineScores.mean();
  }

  /**
   * The baseline's true mean quality, as a band one standard error wide each side: from the
   * clients' outcomes when there are enough (they are the truth), else from the judge's
   * grades of randomly sampled baseline answers with its error undone; unknown, [0.5, 1].
   */
  baselineBand(): { lo: number; hi: number } {
    const clamp = (lo: number, hi: number) => ({ lo: Math.min(1, Math.max(0.2, lo)), hi: Math.min(1, Math.max(0.2, hi)) });
    const o = this.#baselineOutcomes;
    if (o.length >= MIN_BASELINE_OUTCOMES) {
      const se = Math.max(o.sd(), 0.05) / Math.sqrt(o.length);
      return clamp(o.mean() - se, o.mean() + se);
    }
    const j = this.#baselineScores;
    if (j.length < MIN_BASELINE_SAMPLES) return { lo: 0.5, hi: 1 };
    const e = this.judgeErrorRate();
    const m = (j.mean() - e) / (1 - 2 * e);
    const se = Math.max(j.sd(), 0.05) / Math.sqrt(j.length) / (1 - 2 * e);
    return clamp(m - se, m + se);
  }

  /** Whether the baseline's quality is known well enough: enough outcomes, or enough random grades. */
  baselineKnown(): boolean {
    return this.#baselineOutcomes.length >= MIN_BASELINE_OUTCOMES || this.#baselineScores.length >= 2 * MIN_BASELINE_SAMPLES;
  }

  /**
   * How often a probe of the policy needed grades: its answer differed from the baseline's
   * (for a gate: both cheap models agreed on an answer other than the baseline's).
   */
  disagreement(policy: Policy, baselineModel: string): { n: number; rate: number } {
    const key = `${policyKey(policy)}\0${baselineModel}`;
    let d = this.#disagreement.get(key);
    if (!d) {
      d = measureDisagreement(this.probes, policy);
      this.#disagreement.set(key, d);
    }
    return d;
  }

  /**
   * The share of recently probed answers that differ from the baseline's: near 1 where
   * answers are free-form (code, prose), where agreement can prove nothing.
   */
  differingShare(): { n: number; share: number } {
    return (this.#differing ??= measureDiffering(this.probes));
  }

  /**
   * Whether the step's answers are prose or code, not a choice, a number or a short phrase:
   * most of the recent baseline answers run long or over several lines. Not how often cheap
   * answers differ: a weak model differs on half of a two-way choice, and its differing
   * answers still say something once an outcome comes.
   */
  freeForm(): boolean {
    return isFreeForm(this.#shape().long);
  }

  /**
   * The share of recent probes whose baseline answer runs long: on a step of mixed answers (some a choice, some code),
   * those pay the judge for a differing answer even where outcomes come (a differing program is not wrong because the baseline's was right).
   */
  longShare(): number {
    return this.#shape().long.share;
  }

  /** The share of recent probes whose baseline answer runs long (`freeForm`, `longShare`), and the step's two answers where its questions are two-way; kept until the probes change. */
  #shape(): { long: { n: number; share: number }; choices: TwoWay } {
    return (this.#probeShape ??= { long: measureLongShare(this.probes), choices: twoWayChoices(this.probes) });
  }

  #probeShape: { long: { n: number; share: number }; choices: TwoWay } | undefined;

  /** The differing share and the judge's cost share, kept until the probes change (read on every routed call). */
  #differing: { n: number; share: number } | undefined;
  #judgeCost: { share: number | null } | undefined;

  /** What one judge grade cost as a share of a baseline answer, over the probes that paid for one; null before three. */
  judgeCostShare(): number | null {
    return (this.#judgeCost ??= { share: measureJudgeCost(this.probes) }).share;
  }

  /**
   * A policy's retention of the baseline's quality, from two graders kept apart: the
   * judge (paired: the same request answered by the policy's models and the baseline,
   * plus judge checks of served answers) and the clients' outcomes (unpaired: the
   * policy's served calls against the baseline's, each as clients report them). The two
   * estimates are combined by their precision; cost comes from the probes.
   */
  stats(policy: Policy, baselineModel: string, chained = true): PolicyStats {
    const name = policyKey(policy);
    const cacheKey = `${name}\0${baselineModel}${chained ? '' : '\0direct'}`;
    const cached = this.#stats.get(cacheKey);
    if (cached) return cached;
    let probed = this.#probed.get(cacheKey);
    if (!probed) {
      probed = probedFor(this.probes, policy, baselineModel, this.freeForm(), this.#shape().choices);
      this.#probed.set(cacheKey, probed);
    }
    const diffs = [...probed.diffs];
    const costs = [...probed.costs];
    // a judge that disagrees with itself at rate e shrinks every true difference by (1 − 2e)
    // and pulls the baseline's mean toward a half; both are undone before comparing
    const e = this.judgeErrorRate();
    for (let i = 0; i < diffs.length; i++) diffs[i]! /= 1 - 2 * e;
    const band = this.baselineBand();
    const outcomes: number[] = [];
    const judgedBaseline = this.baselineMean();
    for (const s of this.#servedBy.get(name) ?? []) {
      if (s.source === 'judge') diffs.push((s.score - judgedBaseline) / (1 - 2 * e)); // both means pulled toward a half alike
      else outcomes.push(s.score);
    }
    const estimates: { r: number; se: number; n: number }[] = [];
    let judged: { r: number; se: number; n: number } | null = null;
    if (diffs.length > 0) {
      const m = mean(diffs);
      const spread = diffs.length > 1 ? sd(diffs, m) : 1;
      // a loss weighs most against a low baseline, a gain least against a high one: the cautious side of each
      const mb = m < 0 ? band.lo : band.hi;
      judged = { r: 1 + m / mb, se: Math.max(spread, leastSpread(diffs.length)) / Math.sqrt(diffs.length) / mb, n: diffs.length };
      estimates.push(judged);
    }
    const linked = linkedEstimate(probed.linked, e, band);
    if (linked) estimates.push(linked);
    const reported = outcomeRetention(outcomes, this.#baselineOutcomes);
    if (reported) estimates.push(reported);
    if (chained && policy.kind === 'model') {
      for (const c of this.#chained(policy.model, baselineModel, e, band)) {
        estimates.push(c.estimate);
        costs.push(...c.costs);
      }
    }
    // the clients' outcomes are the truth the judge and agreement stand in for: where they speak and a proxy
    // disagrees with them beyond both errors, the proxy is biased on this step and is left out
    if (reported) for (let i = estimates.length - 1; i >= 0; i--) if (estimates[i] !== reported && conflicts(estimates[i]!, reported)) estimates.splice(i, 1);
    const costN = costs.length;
    const costMean = costN ? mean(costs) : Infinity;
    const costSd = costN > 1 ? sd(costs, costMean) : 0;
    const costUcb = costN ? costMean + (2 * costSd) / Math.sqrt(costN) : Infinity;
    let result: PolicyStats;
    if (estimates.length === 0) result = { n: 0, retention: 1, lcb: 0, ucb: 2, costMicros: costMean, costUcbMicros: costUcb };
    else {
      // a proxy that disagrees with the outcomes, if not beyond both errors, still widens their combination (the
      // spread between sources): where that reads the outcomes less precisely than they read alone, they stand alone
      const combined = combine(estimates);
      const alone = reported !== null && combined.se > reported.se;
      const { r: raw, se } = alone ? reported : combined;
      const n = alone ? reported.n : estimates.reduce((a, e) => a + e.n, 0);
      // a retention is a share of the baseline's quality: never below 0, however few and poor the samples
      const r = Math.max(0, raw);
      result = { n, retention: r, lcb: Math.max(0, r - Z * se), ucb: Math.max(0, r + Z * se), costMicros: costMean, costUcbMicros: costUcb };
      if (judged) result.byJudge = { retention: Math.max(0, judged.r), n: judged.n };
      if (reported) result.byOutcome = { retention: Math.max(0, reported.r), n: reported.n };
    }
    this.#stats.set(cacheKey, result);
    return result;
  }

  /**
   * Whether pruning keeps the step's quality: the baseline's answers to pruned requests
   * against its answers to the same requests as sent, as a retention estimate.
   */
  pruneStats(): PruneStats {
    return (this.#pruneStats ??= measurePruning(this.probes, this.judgeErrorRate(), this.baselineMean()));
  }

  /** Exploration spend recorded with the probes since `since` (ms). */
  spentSince(since: number): number {
    let sum = 0;
    for (const p of this.probes) if (p.at >= since) sum += p.spentMicros ?? 0;
    return sum;
  }

  /** Answers the judge graded twice. */
  regrades(): number {
    return this.probes.reduce((n, p) => n + (p.baselineRegrade !== undefined ? 1 : 0), 0);
  }

  /** How often the judge gets a grade wrong (measureJudgeError), the tenant's shared rate until the step's own regrades say. */
  judgeErrorRate(): number {
    return (this.#judgeError ??= measureJudgeError(this.probes, this.#sharedJudgeError));
  }

  /** The judge's error rate as measured for the whole tenant (a judge panel), used until the step's own regrades say. */
  setSharedJudgeError(e: number | undefined): void {
    const rounded = e === undefined ? undefined : Math.round(Math.min(MAX_JUDGE_ERROR, e) * 100) / 100;
    if (rounded === this.#sharedJudgeError) return;
    this.#sharedJudgeError = rounded;
    this.#changed(true);
  }

  #sharedJudgeError: number | undefined;

  /**
   * The clients' outcomes on a policy's served calls against the baseline's, from `least` outcomes
   * on (fewer than `stats` counts): what posterior sampling reads of a candidate on trial.
   */
  outcomeEstimate(policy: Policy, least: number): { r: number; se: number; n: number } | null {
    const name = `${policyKey(policy)}\0${least}`;
    if (this.#outcomeEstimates.has(name)) return this.#outcomeEstimates.get(name)!;
    const outcomes = (this.#servedBy.get(policyKey(policy)) ?? []).filter((s) => s.source !== 'judge').map((s) => s.score);
    const estimate = outcomeRetention(outcomes, this.#baselineOutcomes, least);
    this.#outcomeEstimates.set(name, estimate);
    return estimate;
  }

  /**
   * The clients' outcomes by served policy (count, sum, sum of squares) and the baseline's
   * (count, mean, spread): what the tenant's other steps pool into a trial's prior (trial-pool.ts).
   */
  outcomeSums(): { byPolicy: ReadonlyMap<string, { n: number; sum: number; sumSq: number }>; base: { n: number; mean: number; sd: number } } {
    if (this.#outcomeSums) return this.#outcomeSums;
    const byPolicy = new Map<string, { n: number; sum: number; sumSq: number }>();
    for (const [policy, samples] of this.#servedBy) {
      const t = { n: 0, sum: 0, sumSq: 0 };
      for (const x of samples) {
        if (x.source === 'judge') continue;
        t.n++;
        t.sum += x.score;
        t.sumSq += x.score * x.score;
      }
      if (t.n > 0) byPolicy.set(policy, t);
    }
    const b = this.#baselineOutcomes;
    return (this.#outcomeSums = { byPolicy, base: { n: b.length, mean: b.length ? b.mean() : 0, sd: b.length > 1 ? b.sd() : 0 } });
  }

  #outcomeSums: ReturnType<StepEvidence['outcomeSums']> | undefined;

  /** Outcome estimates read since the evidence last changed (read on every decision of a step with trials). */
  readonly #outcomeEstimates = new Map<string, { r: number; se: number; n: number } | null>();

  /**
   * A model's evidence from probes made while the step served another policy R: its answers
   * against R's served answers (R's answers are not the baseline's, so the difference is to R).
   * Chained to R's own retention (from R's direct evidence only, so no chain runs in a circle),
   * it estimates the model's retention with both uncertainties added.
   */
  #chained(model: string, baselineModel: string, e: number, band: { lo: number; hi: number }): { estimate: { r: number; se: number; n: number }; costs: number[] }[] {
    const byRef = new Map<string, { diffs: number[]; costs: number[] }>();
    for (const p of this.probes) {
      if (!p.reference || p.policy !== `model:${model}`) continue;
      const a = p.answers[model];
      if (!a) continue;
      const diff = gradedDiff(p, a);
      if (diff === null) continue;
      const g = byRef.get(p.reference) ?? { diffs: [], costs: [] };
      g.diffs.push(diff / (1 - 2 * e));
      g.costs.push(a.costMicros);
      byRef.set(p.reference, g);
    }
    const out: { estimate: { r: number; se: number; n: number }; costs: number[] }[] = [];
    for (const [ref, g] of byRef) {
      const r = this.stats(parsePolicy(ref), baselineModel, false);
      if (r.n === 0) continue;
      const m = mean(g.diffs);
      const mb = m < 0 ? band.lo : band.hi;
      const seD = Math.max(g.diffs.length > 1 ? sd(g.diffs, m) : 1, leastSpread(g.diffs.length)) / Math.sqrt(g.diffs.length) / mb;
      const seR = (r.ucb - r.lcb) / (2 * Z);
      out.push({ estimate: { r: r.retention + m / mb, se: Math.sqrt(seD * seD + seR * seR), n: g.diffs.length }, costs: g.costs });
    }
    return out;
  }

  /** Recent served samples of a policy, newest last. */
  recent(policy: string, since: number): ServedSample[] {
    return (this.#servedBy.get(policy) ?? []).filter((s) => s.at >= since);
  }
}

export function policyFromKey(key: string): Policy {
  return parsePolicy(key);
}
