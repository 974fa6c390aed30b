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
import { answerKey, normalizeAnswer } from './normalize.ts';
import { parsePolicy, policyKey, type Policy } from './policies.ts';

export interface ProbeAnswer {
  /** The answer's text: only where the tenant's capture keeps texts (`full`), and until its retention passes. */
  text?: string;
  /** What agreement compares (answerKey); rows of earlier versions have only the text. */
  key?: string;
  /** Judged score, or null when it agrees with the baseline's answer (same score). */
  score: number | null;
  costMicros: number;
  /** What grading this answer cost the judge (what a verify policy pays for it). */
  judgeCostMicros?: number;
}

export interface Probe {
  at: number;
  /**
   * The candidate policy this probe was for. Such a probe grades only answers that disagree
   * with the baseline's (and the baseline's then), so its `baselineScore` is a fair sample of
   * the baseline's quality only when `baselineSampled` says it was graded at random. Probes
   * without it (older ones) graded the baseline's answer always.
   */
  policy?: string;
  baselineSampled?: boolean;
  /** Every answer that differed from the baseline's was graded: evidence for each of its models too. */
  complete?: boolean;
  /**
   * Made while the step served this policy instead of the baseline: `baselineText` and
   * `baselineScore` are then that policy's served answer and its grade (no baseline call was
   * paid for), and `baselineCostMicros` its cost.
   */
  reference?: string;
  /** The call it was made on: the client's outcome for that call, when it comes, is its baseline's true score. */
  call?: string;
  /** That outcome (set when it arrives, not stored with the probe). */
  outcome?: number;
  /**
   * Differing answers were left ungraded for the call's outcome to decide: until it comes the
   * probe is no evidence at all (counting only its agreeing answers would be a biased sample).
   */
  awaitsOutcome?: boolean;
  /** The judge's largest cost for grading one answer to this request (older probes; see ProbeAnswer). */
  judgeCostMicros?: number;
  baselineScore: number | null;
  /**
   * When pruning changed the request: the baseline's answer to the request as sent, and its
   * grade (null when it agrees with the answer to the pruned request).
   */
  unpruned?: { text?: string; key?: string; score: number | null };
  /** What exploring on this request cost (probe answers and judge grades), for the exploration budgets. */
  spentMicros?: number;
  /** A second, independent grade of the baseline's answer (sampled): the judge's self-consistency. */
  baselineRegrade?: number;
  /** The baseline's (or the served policy's) answer: kept as ProbeAnswer's text is. */
  baselineText?: string;
  baselineKey?: string;
  /** Whether that answer ran long or over several lines (free-form), kept without the text. */
  baselineLong?: boolean;
  baselineCostMicros: number;
  answers: Record<string, ProbeAnswer>;
}

export interface ServedSample {
  at: number;
  policy: string;
  score: number;
  /** Who graded it: the client (an outcome) or the judge. Each is compared with the baseline as that same grader sees it. */
  source?: 'outcome' | 'judge';
  /** The call the outcome is for (links it to a probe made on that call). */
  call?: string;
}

export interface PruneStats {
  n: number;
  retention: number;
  lcb: number;
  ucb: number;
}

export interface PolicyStats {
  n: number;
  retention: number;
  lcb: number;
  ucb: number;
  /** Mean cost per call, escalations included. */
  costMicros: number;
  /** An upper confidence bound of that cost, for deciding whether a policy is surely cheaper. */
  costUcbMicros: number;
  /** The two graders' separate estimates of retention, when they have one. */
  byJudge?: { retention: number; n: number };
  byOutcome?: { retention: number; n: number };
}

/** One-sided confidence for "holds": the lower bound at about 84 %. */
const Z = 1.0;
/** Outcome reports the baseline needs before outcomes are compared with it. */
const MIN_BASELINE_OUTCOMES = 20;
/** Probes remembered per step while their call's outcome may still come. */
const MAX_AWAITING = 5_000;
/** Randomly sampled baseline grades before they say what the baseline's quality is. */
const MIN_BASELINE_SAMPLES = 10;
/** Answers graded twice before the judge's error rate is estimated. */
const MIN_REGRADES = 10;
/** Beyond this error rate the judge says too little to correct for (its evidence is capped at 3× its face value). */
const MAX_JUDGE_ERROR = 1 / 3;
/**
 * Above this share, a step's answers are free-form: of its recent baseline answers that run long
 * (`freeForm`), or, for whether probes pay the judge, of its probed answers that differ from the
 * baseline's (`judgesDisagreements` in prospects.ts).
 */
export const FREE_FORM_SHARE = 0.5;
/** The longest normalized answer that is still a short one (a choice, a number, a name, a short phrase). */
const SHORT_ANSWER_CHARS = 40;

/** Outcome reports a policy needs before they count as evidence for it. */
const MIN_POLICY_OUTCOMES = 10;
/**
 * The most recent graded samples kept per policy and for the baseline. Past this the
 * estimates are as narrow as they usefully get, and a step reporting outcomes for months
 * neither grows without bound nor makes each decision slower than the last.
 */
export const SAMPLE_WINDOW = 10_000;

/** Keeps the newest `SAMPLE_WINDOW` of a list (amortized: trims once it is half as long again). */
function trimmed<T>(xs: T[]): T[] {
  return xs.length > SAMPLE_WINDOW * 1.5 ? xs.slice(xs.length - SAMPLE_WINDOW) : xs;
}

/** Scores with their running sums, so their mean and spread cost nothing to read. */
class Scores {
  values: number[] = [];
  #sum = 0;
  #sumSq = 0;

  push(x: number): void {
    this.values.push(x);
    this.#sum += x;
    this.#sumSq += x * x;
    const kept = trimmed(this.values);
    if (kept !== this.values) {
      this.values = kept;
      this.#sum = kept.reduce((a, b) => a + b, 0);
      this.#sumSq = kept.reduce((a, b) => a + b * b, 0);
    }
  }

  get length(): number {
    return this.values.length;
  }

  mean(): number {
    return this.#sum / this.values.length;
  }

  /** The sample standard deviation around the mean. */
  sd(): number {
    const n = this.values.length;
    const m = this.mean();
    return Math.sqrt(Math.max(0, (this.#sumSq - n * m * m) / (n - 1)));
  }
}

/** What agreement compares of a kept answer: its key, or for a row that kept only the text, the text's. */
function keyOf(a: { text?: string | undefined; key?: string | undefined }): string {
  return a.key ?? answerKey(a.text ?? '');
}

function baseKey(p: Probe): string {
  return p.baselineKey ?? answerKey(p.baselineText ?? '');
}

/** Whether two kept answers say the same thing (agree() on their texts, read from their keys). */
function same(a: { text?: string | undefined; key?: string | undefined }, b: { text?: string | undefined; key?: string | undefined }): boolean {
  return keyOf(a) === keyOf(b);
}

/** A free-form answer: over several lines, or longer normalized than a short one. */
function runsLong(text: string): boolean {
  return text.trim().includes('\n') || normalizeAnswer(text).length > SHORT_ANSWER_CHARS;
}

/**
 * A probe as the tenant's capture setting lets evidence keep it: every answer's agreement key
 * and the baseline's length class always; the texts only when `keepText` gives them back (capture
 * `full`: masked when it redacts PII), else none. The optimizer's memory holds this form too, so
 * every replica decides on the same evidence, loaded or not.
 */
export function storedProbe(p: Probe, keepText: (text: string) => string | null): Probe {
  const kept = (text: string | undefined, key: string | undefined) => {
    const k = key ?? answerKey(text ?? '');
    const t = text === undefined ? null : keepText(text);
    return t === null ? { key: k } : { text: t, key: k };
  };
  const base = kept(p.baselineText, p.baselineKey);
  const { baselineText: _t, baselineKey: _k, ...rest } = p;
  const out: Probe = { ...rest, ...(base.text !== undefined ? { baselineText: base.text } : {}), baselineKey: base.key, baselineLong: p.baselineLong ?? runsLong(p.baselineText ?? ''), answers: {} };
  for (const [m, a] of Object.entries(p.answers)) {
    const { text, key, ...grade } = a;
    out.answers[m] = { ...kept(text, key), ...grade };
  }
  if (p.unpruned) out.unpruned = { ...kept(p.unpruned.text, p.unpruned.key), score: p.unpruned.score };
  return out;
}

/**
 * An answer's score minus that of the answer the probe compared it with: 0 when they agree,
 * the judge's difference when both were graded, else unknown.
 */
function gradedDiff(p: Probe, a: ProbeAnswer): number | null {
  if (keyOf(a) === baseKey(p)) return 0;
  return a.score !== null && p.baselineScore !== null ? a.score - p.baselineScore : null;
}

function scoreOf(p: Probe, model: string): number | null {
  const a = p.answers[model];
  if (!a) return null;
  if (a.score !== null) return a.score;
  return keyOf(a) === baseKey(p) ? (p.baselineScore ?? null) : null;
}

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
    this.#pruneStats = undefined;
    if (!probes) return;
    this.#probed.clear();
    this.#disagreement.clear();
    this.#judgeError = undefined;
    this.#judgeCost = undefined;
    this.#differing = undefined;
    this.#freeForm = undefined;
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
      let n = 0;
      let differ = 0;
      for (const p of this.probes) {
        const models = policy.kind === 'gate' ? [policy.a, policy.b] : policy.kind === 'model' || policy.kind === 'verify' ? [policy.model] : [];
        const answers = models.map((m) => p.answers[m]);
        if (models.length === 0 || answers.some((a) => !a)) continue;
        n++;
        const [a, b] = answers as ProbeAnswer[];
        if (b ? same(a!, b) && keyOf(a!) !== baseKey(p) : keyOf(a!) !== baseKey(p)) differ++;
      }
      d = { n, rate: n ? differ / n : 0 };
      this.#disagreement.set(key, d);
    }
    return d;
  }

  /**
   * The share of recently probed answers that differ from the baseline's: near 1 where
   * answers are free-form (code, prose), where agreement can prove nothing.
   */
  differingShare(): { n: number; share: number } {
    return (this.#differing ??= this.#measureDiffering());
  }

  /**
   * Whether the step's answers are prose or code, not a choice, a number or a short phrase:
   * most of the recent baseline answers run long or over several lines. Not how often cheap
   * answers differ: a weak model differs on half of a two-way choice, and its differing
   * answers still say something once an outcome comes.
   */
  freeForm(): boolean {
    return (this.#freeForm ??= this.#measureFreeForm());
  }

  #freeForm: boolean | undefined;

  #measureFreeForm(): boolean {
    let n = 0;
    let long = 0;
    for (let i = this.probes.length - 1; i >= 0 && n < 20; i--) {
      const p = this.probes[i]!;
      if (p.reference) continue;
      n++;
      if (p.baselineLong ?? runsLong(p.baselineText ?? '')) long++;
    }
    return n >= 5 && long / n > FREE_FORM_SHARE;
  }

  /** The differing share and the judge's cost share, kept until the probes change (read on every routed call). */
  #differing: { n: number; share: number } | undefined;
  #judgeCost: { share: number | null } | undefined;

  #measureDiffering(): { n: number; share: number } {
    let n = 0;
    let differ = 0;
    for (let i = this.probes.length - 1; i >= 0 && n < 50; i--) {
      const p = this.probes[i]!;
      if (p.reference) continue;
      for (const a of Object.values(p.answers)) {
        n++;
        if (keyOf(a) !== baseKey(p)) differ++;
      }
    }
    return { n, share: n ? differ / n : 0 };
  }

  /** What one judge grade cost as a share of a baseline answer, over the probes that paid for one; null before three. */
  judgeCostShare(): number | null {
    return (this.#judgeCost ??= { share: this.#measureJudgeCost() }).share;
  }

  #measureJudgeCost(): number | null {
    let judge = 0;
    let base = 0;
    let n = 0;
    for (const p of this.probes) {
      if (!p.judgeCostMicros || !p.baselineCostMicros || p.reference) continue;
      judge += p.judgeCostMicros;
      base += p.baselineCostMicros;
      n++;
    }
    return n >= 3 ? judge / base : null;
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
      probed = { diffs: [], costs: [], linked: { agree: 0, pending: 0, resolved: [] } };
      // where answers are free-form, a differing answer says nothing until the judge grades it: an outcome only
      // tells whether the baseline's was right
      const freeForm = this.freeForm();
      for (const p of this.probes) {
        if (linkedToOutcome(p, policy)) {
          const o = this.#outcomeDiff(p, policy, baselineModel);
          if (o === null || (freeForm && o.differs && !o.judged)) continue;
          probed.costs.push(o.cost);
          if (!o.differs) probed.linked.agree++;
          else if (o.diff === null) probed.linked.pending++;
          else probed.linked.resolved.push({ diff: o.diff, judged: o.judged });
          continue;
        }
        const d = this.#probeDiff(p, policy, baselineModel);
        if (d === null) continue;
        probed.diffs.push(d.diff);
        probed.costs.push(d.cost);
      }
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
      if (s.source === 'judge') diffs.push(s.score - judgedBaseline);
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
    const reported = this.#outcomeRetention(outcomes);
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
      const { r: raw, se } = combine(estimates);
      const n = estimates.reduce((a, e) => a + e.n, 0);
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
   * How often the judge gets a grade wrong, from its self-disagreement on answers graded
   * twice (2e(1 − e) for independent errors); 0 until enough answers were graded twice.
   * The point estimate: its upper bound would bias every policy down, not widen its bounds.
   */
  /**
   * Whether pruning keeps the step's quality: the baseline's answers to pruned requests
   * against its answers to the same requests as sent, as a retention estimate.
   */
  pruneStats(): PruneStats {
    return (this.#pruneStats ??= this.#measurePruning());
  }

  #measurePruning(): PruneStats {
    const e = this.judgeErrorRate();
    const diffs: number[] = [];
    for (const p of this.probes) {
      if (!p.unpruned) continue;
      if (keyOf(p.unpruned) === baseKey(p)) diffs.push(0);
      else if (p.unpruned.score !== null && p.baselineScore !== null) diffs.push((p.baselineScore - p.unpruned.score) / (1 - 2 * e));
    }
    const mb = Math.max(0, (this.baselineMean() - e) / (1 - 2 * e));
    if (diffs.length === 0 || mb === 0) return { n: diffs.length, retention: 1, lcb: 0, ucb: 2 };
    const m = mean(diffs);
    const se = Math.max(diffs.length > 1 ? sd(diffs, m) : 1, leastSpread(diffs.length)) / Math.sqrt(diffs.length) / mb;
    const r = 1 + m / mb;
    return { n: diffs.length, retention: r, lcb: r - Z * se, ucb: r + Z * se };
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

  judgeErrorRate(): number {
    return (this.#judgeError ??= this.#measureJudgeError());
  }

  /** The judge's error rate as measured for the whole tenant (a judge panel), used until the step's own regrades say. */
  setSharedJudgeError(e: number | undefined): void {
    const rounded = e === undefined ? undefined : Math.round(Math.min(MAX_JUDGE_ERROR, e) * 100) / 100;
    if (rounded === this.#sharedJudgeError) return;
    this.#sharedJudgeError = rounded;
    this.#changed(true);
  }

  #sharedJudgeError: number | undefined;

  #measureJudgeError(): number {
    const d: number[] = [];
    for (const p of this.probes) if (p.baselineRegrade !== undefined && p.baselineScore !== null) d.push(Math.abs(p.baselineScore - p.baselineRegrade));
    if (d.length < MIN_REGRADES) return this.#sharedJudgeError ?? 0;
    const m = Math.min(0.5, mean(d));
    return Math.min(MAX_JUDGE_ERROR, (1 - Math.sqrt(1 - 2 * m)) / 2);
  }

  /** Outcome-based retention: the policy's mean outcome over the baseline's, once both have enough reports. */
  /**
   * The clients' outcomes on a policy's served calls against the baseline's, from `least` outcomes
   * on (fewer than `stats` counts): what posterior sampling reads of a candidate on trial.
   */
  outcomeEstimate(policy: Policy, least: number): { r: number; se: number; n: number } | null {
    const outcomes = (this.#servedBy.get(policyKey(policy)) ?? []).filter((s) => s.source !== 'judge').map((s) => s.score);
    return this.#outcomeRetention(outcomes, least);
  }

  #outcomeRetention(outcomes: number[], least = MIN_POLICY_OUTCOMES): { r: number; se: number; n: number } | null {
    const base = this.#baselineOutcomes;
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

  /**
   * A probe that waits for its call's outcome. An answer that agrees with the baseline's shares
   * its score (known at once, whatever the outcome); one that differs is resolved by the judge's
   * grade when it has one, else by the outcome when it comes (the baseline's answer is then
   * right or wrong, and the differing one is counted as wrong: cautious, and free), else it is
   * pending: most never get an outcome, and `linkedEstimate` reads them through the ones that did.
   */
  #outcomeDiff(p: Probe, policy: Policy, baselineModel: string): { diff: number | null; differs: boolean; judged: boolean; cost: number } | null {
    const differs = (model: string, cost: number) => {
      const graded = gradedDiff(p, p.answers[model]!);
      if (graded === 0) return { diff: 0, differs: false, judged: false, cost };
      if (graded !== null) return { diff: graded, differs: true, judged: true, cost };
      return { diff: p.outcome === undefined ? null : -p.outcome, differs: true, judged: false, cost };
    };
    switch (policy.kind) {
      case 'model': {
        if (policy.model === baselineModel) return { diff: 0, differs: false, judged: false, cost: p.baselineCostMicros };
        const a = p.answers[policy.model];
        return a ? differs(policy.model, a.costMicros) : null;
      }
      case 'gate': {
        const a = p.answers[policy.a];
        const b = p.answers[policy.b];
        if (!a || !b) return null;
        const cost = a.costMicros + b.costMicros;
        return same(a, b) ? differs(policy.a, cost) : { diff: 0, differs: false, judged: false, cost: cost + p.baselineCostMicros };
      }
      default:
        return null;
    }
  }

  /** A policy's answer to one probed request, graded: its score minus the baseline's, and what it cost. */
  #probeDiff(p: Probe, policy: Policy, baselineModel: string): { diff: number; cost: number } | null {
    if (p.reference) return null; // compared with another policy's answer, not the baseline's: see #chained
    if (p.awaitsOutcome) return null; // read by #outcomeDiff, or no evidence for this policy
    // a probe for one candidate graded only what that candidate needed: it is evidence for it alone
    const isBaseline = policy.kind === 'model' && policy.model === baselineModel;
    if (p.policy !== undefined && !isBaseline && !covers(p, policy)) return null;
    const base = p.baselineScore;
    // the policy's served answer (from `model`) and its cost, or an escalation to the baseline
    const served = (model: string, cost: number): { diff: number; cost: number } | null => {
      const diff = gradedDiff(p, p.answers[model]!);
      return diff === null ? null : { diff, cost };
    };
    const escalated = (cost: number) => ({ diff: 0, cost: cost + p.baselineCostMicros });
    switch (policy.kind) {
      case 'model': {
        if (policy.model === baselineModel) return { diff: 0, cost: p.baselineCostMicros };
        if (!p.answers[policy.model]) return null;
        return served(policy.model, p.answers[policy.model]!.costMicros);
      }
      case 'verify': {
        const a = p.answers[policy.model];
        const s = scoreOf(p, policy.model);
        const judge = a?.judgeCostMicros ?? p.judgeCostMicros;
        if (!a || s === null || base === null || judge === undefined) return null;
        // the judge passes it (served) or fails it (escalated: the baseline's answer and cost)
        return s >= 0.5 ? { diff: s - base, cost: a.costMicros + judge } : escalated(a.costMicros + judge);
      }
      case 'gate': {
        const a = p.answers[policy.a];
        const b = p.answers[policy.b];
        if (!a || !b) return null;
        const cost = a.costMicros + b.costMicros;
        return same(a, b) ? served(policy.a, cost) : escalated(cost);
      }
      case 'confirm': {
        const a = p.answers[policy.model];
        if (!a || policy.by.some((m) => !p.answers[m])) return null;
        // the first confirmer runs alongside; each further one only while none has agreed
        let cost = a.costMicros;
        for (const m of policy.by) {
          const h = p.answers[m]!;
          cost += h.costMicros;
          if (same(a, h)) return served(policy.model, cost);
        }
        return escalated(cost);
      }
      case 'vote': {
        const answers = policy.models.map((m) => p.answers[m]);
        if (answers.some((a) => !a)) return null;
        const cost = answers.reduce((c, a) => c + a!.costMicros, 0);
        return answers.every((a) => same(a!, answers[0]!)) ? served(policy.models[0]!, cost) : escalated(cost);
      }
    }
  }

  /** Recent served samples of a policy, newest last. */
  recent(policy: string, since: number): ServedSample[] {
    return (this.#servedBy.get(policy) ?? []).filter((s) => s.at >= since);
  }
}

/** Whether a probe's differing answers wait for its call's outcome, for a policy its answers can speak for. */
function linkedToOutcome(p: Probe, policy: Policy): boolean {
  return (p.outcome !== undefined || p.awaitsOutcome === true) && p.policy !== undefined && !p.reference && (policy.kind === 'model' || policy.kind === 'gate');
}

/** A policy's probes that wait for outcomes: answers that agree with the baseline's, that differ and are still unresolved, and the resolved differences. */
interface Linked {
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
function linkedEstimate(l: Linked, e: number, band: { lo: number; hi: number }): { r: number; se: number; n: number } | null {
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

/** Whether a probe made for one candidate graded all that `policy`'s evidence needs. */
function covers(p: Probe, policy: Policy): boolean {
  if (p.policy === policyKey(policy)) return true;
  // a verify probe grades its model's answer always, a complete probe every differing answer: evidence for each model alone
  if (policy.kind !== 'model') return p.complete === true && policy.kind === 'gate' && p.answers[policy.a] !== undefined && p.answers[policy.b] !== undefined;
  return p.policy === `verify:${policy.model}` || (p.complete === true && p.answers[policy.model] !== undefined);
}

/**
 * Estimates of one retention from different sources (the judge's grades, the clients'
 * outcomes, a chain through another policy), combined by precision with a random-effects
 * term (DerSimonian–Laird): sources that disagree by more than their own errors allow are
 * each biased in some way, and the spread between them widens the combined bound instead of
 * being averaged away. Weighted as if independent, a chained estimate of 1.0 ± 0.01 outvoted
 * 196 outcomes at 0.94 ± 0.03, and a model 6 points under the bar served a whole step.
 */
/** How many standard errors of their difference a proxy estimate may lie from the outcomes' before it is taken as biased. */
const PROXY_CONFLICT_Z = 2;

function conflicts(proxy: { r: number; se: number }, truth: { r: number; se: number }): boolean {
  return Math.abs(proxy.r - truth.r) > PROXY_CONFLICT_Z * Math.sqrt(proxy.se * proxy.se + truth.se * truth.se);
}

export function combine(estimates: readonly { r: number; se: number }[]): { r: number; se: number } {
  const w = estimates.map((e) => 1 / (e.se * e.se));
  const wsum = w.reduce((a, b) => a + b, 0);
  const fixed = estimates.reduce((a, e, i) => a + w[i]! * e.r, 0) / wsum;
  if (estimates.length < 2) return { r: fixed, se: 1 / Math.sqrt(wsum) };
  const q = estimates.reduce((a, e, i) => a + w[i]! * (e.r - fixed) ** 2, 0);
  const c = wsum - w.reduce((a, x) => a + x * x, 0) / wsum;
  const tau2 = Math.max(0, (q - (estimates.length - 1)) / c);
  const wr = estimates.map((e) => 1 / (e.se * e.se + tau2));
  const wrsum = wr.reduce((a, b) => a + b, 0);
  return { r: estimates.reduce((a, e, i) => a + wr[i]! * e.r, 0) / wrsum, se: 1 / Math.sqrt(wrsum) };
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

export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The sample standard deviation of `xs` around their mean `m`. */
export function sd(xs: number[], m: number): number {
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
}

export function policyFromKey(key: string): Policy {
  return parsePolicy(key);
}
