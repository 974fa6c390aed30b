// What a step weighs its candidates on, beside its own evidence: the models multi-model policies
// are built from, a policy's cost priced from the catalog where no probe measured it, and the
// estimates the tenant's other steps give a candidate (its prior).
import type { DecideInput } from './decide-input.ts';
import type { StepEvidence } from './evidence.ts';
import type { PolicyStats } from './evidence-types.ts';
import type { Policy } from './policies.ts';
import { posterior, type Estimate, type Prior } from './priors.ts';
import { GATE_ESCALATION } from './prospects.ts';
import { stepKind, type StepState } from './step-state.ts';
import { outcomeTotals, type OutcomeTotals, type StepOutcomes } from './trial-pool.ts';

/**
 * How many reads the tenant's pooled step estimates serve before they are gathered again (a decision
 * reads them twice): they change with the steps' evidence, which changes call by call, not by the
 * clock. Reused for two seconds instead, the priors a decision saw depended on how many calls the
 * machine got through in two seconds, and the same calls in the same order decided differently on a
 * loaded machine than on a quiet one.
 */
const PRIORS_READS = 64;
/** Multi-model policies draw on this many of a step's strongest cheap models, plus this many of the cheapest. */
const POOL_STRONG = 4;
const POOL_CHEAP = 2;

/** A policy's statistics with its retention taken from the posterior (own evidence shrunk toward a prior). */
export function shrink(st: PolicyStats, prior: Prior | null): PolicyStats {
  if (!prior) return st;
  const own: Estimate = { retention: st.retention, se: st.n > 0 ? (st.ucb - st.lcb) / 2 : Infinity, n: st.n };
  const post = posterior(own, prior);
  return { ...st, retention: post.retention, lcb: post.retention - post.se, ucb: post.retention + post.se };
}

/** One policy's outcomes over a tenant's steps: their totals, and each step's own share (by fingerprint). */
export interface TenantOutcomes {
  totals: OutcomeTotals;
  steps: ReadonlyMap<string, StepOutcomes>;
}

/** A tenant's steps of one kind, and what is read off them, held for PRIORS_READS reads (each read on first use). */
interface TenantGroup {
  reads: number;
  peers: StepState[];
  estimates?: Map<string, (Estimate & { fingerprint: string })[]>;
  outcomes?: Map<string, TenantOutcomes>;
}

/** What a tenant's steps (of the same kind) say of each candidate, for its other steps: gathered again every PRIORS_READS reads. */
export class TenantPriors {
  readonly #groups = new Map<string, TenantGroup>();

  /** The tenant's steps of the step's kind, found once per PRIORS_READS reads. */
  #group(s: StepState, states: ReadonlyMap<string, StepState>): TenantGroup {
    const kind = stepKind(s) ?? '';
    const key = `${s.key.accountId}|${kind}`;
    const held = this.#groups.get(key);
    if (held && ++held.reads < PRIORS_READS) return held;
    const peers = [...states.values()].filter((o) => o.key.accountId === s.key.accountId && (stepKind(o) ?? '') === kind);
    const group: TenantGroup = { reads: 0, peers };
    this.#groups.set(key, group);
    return group;
  }

  /** The own estimates of every step of the tenant (of the same kind), by policy, for the shared priors: read from each step's candidate view. */
  of(s: StepState, states: ReadonlyMap<string, StepState>): Map<string, (Estimate & { fingerprint: string })[]> {
    const group = this.#group(s, states);
    if (group.estimates) return group.estimates;
    const byPolicy = new Map<string, (Estimate & { fingerprint: string })[]>();
    for (const o of group.peers) {
      for (const v of o.view) {
        const list = byPolicy.get(v.policy) ?? [];
        list.push({ fingerprint: o.key.fingerprint, retention: v.retention, se: Math.max(v.retention - v.lcb, 1e-3), n: v.n });
        byPolicy.set(v.policy, list);
      }
    }
    return (group.estimates = byPolicy);
  }

  /**
   * The clients' outcomes on each policy's served calls over every step of the tenant (of the same
   * kind), beside each step's baseline outcomes, totalled for a trial's prior (trial-pool.ts), with
   * each step's own share to take out again.
   */
  outcomes(s: StepState, states: ReadonlyMap<string, StepState>): Map<string, TenantOutcomes> {
    const group = this.#group(s, states);
    if (group.outcomes) return group.outcomes;
    const bySteps = new Map<string, Map<string, StepOutcomes>>();
    for (const o of group.peers) {
      const { byPolicy: sums, base } = o.evidence.outcomeSums();
      for (const [policy, t] of sums) {
        const steps = bySteps.get(policy) ?? new Map<string, StepOutcomes>();
        steps.set(o.key.fingerprint, { fingerprint: o.key.fingerprint, ...t, baseN: base.n, baseMean: base.mean, baseSd: base.sd });
        bySteps.set(policy, steps);
      }
    }
    return (group.outcomes = new Map([...bySteps].map(([policy, steps]) => [policy, { totals: outcomeTotals(steps.values()), steps }])));
  }
}

/**
 * A policy's statistics with its cost per call priced from the catalog where no probe measured it:
 * a policy proven by serving it (its outcomes) has evidence but no probed cost, and an unknown
 * cost would keep it from ever serving (a gate escalating as often as `escalation` says, asked only then: prospects.ts,
 * `gateEscalation`). A verify policy costs at least its answer and one grade by
 * the judge that would grade it now (`gradeNow`, a share of a baseline call): its probes were
 * graded by the judge of their day, a cheap judge's panel may have stopped trusting it since, and
 * serving then grades with the configured judge, which may cost more than the baseline's answer.
 */
export function priced(st: PolicyStats, p: Policy, input: DecideInput, baselineCost: number, gradeNow?: number, escalation: () => number = () => GATE_ESCALATION): PolicyStats {
  if (st.n === 0 || !Number.isFinite(baselineCost)) return st;
  const share = (m: string) => input.priceShares?.[m];
  if (p.kind === 'verify' && gradeNow !== undefined && Number.isFinite(st.costMicros)) {
    const least = ((share(p.model) ?? 0) + gradeNow) * baselineCost;
    return least > st.costMicros ? { ...st, costMicros: least, costUcbMicros: Math.max(st.costUcbMicros, least) } : st;
  }
  if (Number.isFinite(st.costMicros)) return st;
  const shares = p.kind === 'model' ? [share(p.model)] : p.kind === 'gate' ? [share(p.a), share(p.b)] : [];
  if (shares.length === 0 || shares.some((x) => x === undefined)) return st;
  const micros = (shares.reduce((a, b) => a! + b!, 0)! + (p.kind === 'gate' ? escalation() : 0)) * baselineCost;
  return { ...st, costMicros: micros, costUcbMicros: micros };
}

/**
 * What one grade of a served answer costs now, as a share of a baseline call: the cheap judge's
 * price once its panel adopted it; else the configured judge's, at the more of its price and what
 * the step's grades measured (those may have been the cheap judge's, while it was adopted).
 */
export function servingGradeShare(evidence: StepEvidence, input: DecideInput): number {
  if (input.judges?.panel.adopted) return input.judges.cheapShare;
  return Math.max(evidence.judgeCostShare() ?? 0, input.judgeShare ?? 1);
}

/**
 * The models multi-model policies are built from: the step's strongest cheap models by
 * evidence (unproven ones count as the cheapest), plus the two cheapest as helpers.
 */
export function ensemblePool(evidence: StepEvidence, input: DecideInput): string[] {
  if (!input.allowGates) return [];
  const ranked = input.cheaper
    .map((m, i) => ({ m, i, st: evidence.stats({ kind: 'model', model: m }, input.baseline) }))
    .sort((a, b) => (b.st.n > 0 ? b.st.lcb : 0) - (a.st.n > 0 ? a.st.lcb : 0) || a.i - b.i)
    .map((x) => x.m);
  const pool = ranked.slice(0, POOL_STRONG);
  for (const m of input.cheaper.slice(0, POOL_CHEAP)) if (!pool.includes(m)) pool.push(m);
  return pool;
}
