// Evidence memory per step: probes (the same request answered by candidate models
// during exploration, the distinct answers graded by the judge) and served samples
// (outcomes the client reported, judge checks, quality-gate failures). From it,
// every policy's retention of the baseline's quality is estimated with a lower
// confidence bound, and its expected cost per call.
import { agree } from './normalize.ts';
import { parsePolicy, type Policy } from './policies.ts';

export interface ProbeAnswer {
  text: string;
  /** Judged score, or null when it agrees with the baseline's answer (same score). */
  score: number | null;
  costMicros: number;
}

export interface Probe {
  at: number;
  /** The judge's cost for grading one answer to this request (what a verify policy pays). */
  judgeCostMicros?: number;
  baselineScore: number | null;
  baselineText: string;
  baselineCostMicros: number;
  answers: Record<string, ProbeAnswer>;
}

export interface ServedSample {
  at: number;
  policy: string;
  score: number;
  /** Who graded it: the client (an outcome) or the judge. Each is compared with the baseline as that same grader sees it. */
  source?: 'outcome' | 'judge';
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
}

/** One-sided confidence for "holds": the lower bound at about 84 %. */
const Z = 1.0;

function scoreOf(p: Probe, model: string): number | null {
  const a = p.answers[model];
  if (!a) return null;
  if (a.score !== null) return a.score;
  return agree(a.text, p.baselineText) ? (p.baselineScore ?? null) : null;
}

export class StepEvidence {
  probes: Probe[] = [];
  served: ServedSample[] = [];
  /** Baseline quality as the judge grades it (probes, judge checks). */
  baselineScores: number[] = [];
  /** Baseline quality as clients report it (outcomes while the baseline served). */
  baselineOutcomes: number[] = [];

  addProbe(p: Probe): void {
    this.probes.push(p);
    if (p.baselineScore !== null) this.baselineScores.push(p.baselineScore);
  }

  addServed(s: ServedSample, isBaseline: boolean): void {
    this.served.push(s);
    if (isBaseline) (s.source === 'judge' ? this.baselineScores : this.baselineOutcomes).push(s.score);
  }

  /** The baseline's mean quality as one grader sees it; outcomes fall back to the judge's view until there are enough. */
  baselineMeanBy(source: 'outcome' | 'judge' | undefined): number {
    if (source !== 'judge' && this.baselineOutcomes.length >= 20) return this.baselineOutcomes.reduce((a, b) => a + b, 0) / this.baselineOutcomes.length;
    return this.baselineMean();
  }

  /** Forgets what a model answered (it changed: drift), keeping everything else. */
  forgetModels(models: string[], policies: string[]): void {
    for (const p of this.probes) for (const m of models) delete p.answers[m];
    this.served = this.served.filter((s) => !policies.includes(s.policy));
  }

  baselineMean(): number {
    if (this.baselineScores.length === 0) return 1;
    return this.baselineScores.reduce((a, b) => a + b, 0) / this.baselineScores.length;
  }

  stats(policy: Policy, baselineModel: string): PolicyStats {
    const diffs: number[] = [];
    const costs: number[] = [];
    for (const p of this.probes) {
      const d = this.#probeDiff(p, policy, baselineModel);
      if (d === null) continue;
      diffs.push(d.diff);
      costs.push(d.cost);
    }
    const costN = costs.length;
    const cost = costs.reduce((a, b) => a + b, 0);
    const costMean = costN ? cost / costN : Infinity;
    const costSd = costN > 1 ? Math.sqrt(costs.reduce((a, b) => a + (b - costMean) ** 2, 0) / (costN - 1)) : 0;
    const costUcb = costN ? costMean + (2 * costSd) / Math.sqrt(costN) : Infinity;
    const name = policy.kind === 'gate' ? `gate:${policy.a}+${policy.b}` : `${policy.kind}:${policy.model}`;
    const mb = this.baselineMean();
    for (const s of this.served) if (s.policy === name) diffs.push(((s.score - this.baselineMeanBy(s.source)) * mb) / (this.baselineMeanBy(s.source) || 1));
    const n = diffs.length;
    if (n === 0 || mb === 0) return { n, retention: 1, lcb: 0, ucb: 2, costMicros: costMean, costUcbMicros: costUcb };
    const mean = diffs.reduce((a, b) => a + b, 0) / n;
    const sd = n > 1 ? Math.sqrt(diffs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 1;
    const half = (Z * Math.max(sd, 0.05)) / Math.sqrt(n);
    return { n, retention: 1 + mean / mb, lcb: 1 + (mean - half) / mb, ucb: 1 + (mean + half) / mb, costMicros: costMean, costUcbMicros: costUcb };
  }

  #probeDiff(p: Probe, policy: Policy, baselineModel: string): { diff: number; cost: number } | null {
    const base = p.baselineScore;
    if (policy.kind === 'verify') {
      const a = p.answers[policy.model];
      const s = scoreOf(p, policy.model);
      if (!a || s === null || base === null || p.judgeCostMicros === undefined) return null;
      // the judge passes it (served) or fails it (escalated: the baseline's answer and cost)
      return s >= 0.5 ? { diff: s - base, cost: a.costMicros + p.judgeCostMicros } : { diff: 0, cost: a.costMicros + p.judgeCostMicros + p.baselineCostMicros };
    }
    if (policy.kind === 'model') {
      if (policy.model === baselineModel) return { diff: 0, cost: p.baselineCostMicros };
      const a = p.answers[policy.model];
      if (!a) return null;
      const s = scoreOf(p, policy.model);
      if (s === null) return agree(a.text, p.baselineText) ? { diff: 0, cost: a.costMicros } : null;
      if (base === null) return null;
      return { diff: s - base, cost: a.costMicros };
    }
    const a = p.answers[policy.a];
    const b = p.answers[policy.b];
    if (!a || !b) return null;
    if (agree(a.text, b.text)) {
      const cost = a.costMicros + b.costMicros;
      if (agree(a.text, p.baselineText)) return { diff: 0, cost };
      const s = scoreOf(p, policy.a);
      if (s === null || base === null) return null;
      return { diff: s - base, cost };
    }
    return { diff: 0, cost: a.costMicros + b.costMicros + p.baselineCostMicros };
  }

  /** Recent served samples of a policy, newest last. */
  recent(policy: string, since: number): ServedSample[] {
    return this.served.filter((s) => s.policy === policy && s.at >= since);
  }
}

export function policyFromKey(key: string): Policy {
  return parsePolicy(key);
}
