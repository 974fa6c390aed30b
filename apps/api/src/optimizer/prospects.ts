// What exploring a candidate would cost and promise, for the payback rule: its expected
// cost per call, what one probe of it costs (answers, the judge's grades, the baseline's
// answer where another policy serves), and how likely it is to hold given what is known.
import { FREE_FORM_SHARE, type StepEvidence, type PolicyStats } from './evidence.ts';
import type { Prospect } from './exploration.ts';
import { AUDIT_SHARE } from './judge-panel.ts';
import type { DecideInput } from './decide-input.ts';
import { policyKey, policyModels, type Policy } from './policies.ts';
import { posterior } from './priors.ts';

/** How often a cheap model's answer is taken to differ from the baseline's before probes say. */
const DEFAULT_DISAGREEMENT = 0.3;
/** Grades a step's exploration is planned over, for the expected cost of one. */
const PLANNED_GRADES = 100;
/** How far a candidate's retention is believed to sit from the floor before any evidence (its prior's spread). */
const PRIOR_SE = 0.06;
/**
 * How far a candidate's prior moves per point of catalog strength over the candidates' median
 * (strengths on a 0–1 scale: 0.1 over the median starts it 0.04 higher), and the most it moves.
 */
const STRENGTH_SLOPE = 0.4;
const MAX_STRENGTH_LIFT = 0.06;

/**
 * How much higher a gate starts than a single model: it serves only answers two models agree on
 * and sends the rest to the baseline, so its served answers are wrong less often than either model's.
 */
export const GATE_LIFT = 0.03;

/** Where the catalog's strengths start a candidate: a gate by its stronger model, the others by their one. */
function strengthLift(p: Policy, input: DecideInput): number {
  const lifts = policyModels(p).map((m) => input.strengths?.[m] ?? 0);
  const lift = lifts.length ? Math.max(...lifts) : 0;
  return Math.max(-MAX_STRENGTH_LIFT, Math.min(MAX_STRENGTH_LIFT, STRENGTH_SLOPE * lift));
}

/** Samples each of a gate's models needs before their own estimates set where the gate starts. */
const MEMBER_SAMPLES = 10;

/**
 * Where a gate starts when both its models have evidence of their own on the step: it serves a
 * wrong answer only where both are wrong and agree, so its shortfall from the baseline is about
 * the product of theirs (errors taken as independent: correlated ones do worse, and the gate's
 * own probes then say so). Two weak models make a weak gate: a prior that ignored them started
 * each of the step's dozens of pairs at the bar, and evidence went to a handful of probes each.
 */
export function gateStart(p: Policy, own: ReadonlyMap<string, PolicyStats> | undefined): number | null {
  const members = measuredMembers(p, own);
  return members ? 1 - shortfall(members[0]) * shortfall(members[1]) : null;
}

/** A gate's two models' own statistics on the step, when both have MEMBER_SAMPLES; else null. */
function measuredMembers(p: Policy, own: ReadonlyMap<string, PolicyStats> | undefined): [PolicyStats, PolicyStats] | null {
  if (p.kind !== 'gate' || !own) return null;
  const a = own.get(`model:${p.a}`);
  const b = own.get(`model:${p.b}`);
  return a && b && a.n >= MEMBER_SAMPLES && b.n >= MEMBER_SAMPLES ? [a, b] : null;
}

/** How far a model falls short of the baseline's quality, in [0, 1]. */
const shortfall = (st: PolicyStats) => Math.min(1, Math.max(0, 1 - st.retention));

/** A policy's standard error as its bounds (at Z_STATS) give it: half their width. */
export const halfWidth = (st: PolicyStats) => (st.ucb - st.lcb) / (2 * Z_STATS);

/**
 * Where a gate's retention lies, and how surely, when both its models have evidence of their own: it
 * serves a wrong answer only where both are wrong and agree. Wrong independently, its shortfall is the
 * product of theirs (`gateStart`); wrong together (every question the stronger misses, the weaker
 * misses too), it is the stronger model's own. The truth lies between: evenly over that range, widened
 * by the stronger model's standard error and the weaker's as it moves the product. On the routing
 * data, mixtral-8x7b with Yi-34B spans 0.947–0.994 on `arc_challenge` (recorded 0.983) and
 * 0.878–0.974 on `winogrande` (0.949). The trial prior's spread of 0.2, read as the spread of a gate
 * whose two models the step has measured, priced a promising gate's trials as an unknown model's.
 */
export function gateRange(p: Policy, own: ReadonlyMap<string, PolicyStats> | undefined): { mean: number; sd: number } | null {
  const members = measuredMembers(p, own);
  if (!members) return null;
  const [a, b] = members;
  const [strong, weak] = shortfall(a) <= shortfall(b) ? [a, b] : [b, a];
  const hi = 1 - shortfall(strong) * shortfall(weak);
  const lo = 1 - shortfall(strong);
  return { mean: (hi + lo) / 2, sd: Math.hypot((hi - lo) / Math.sqrt(12), halfWidth(strong), halfWidth(weak) * shortfall(strong)) };
}

/**
 * Where a candidate's retention starts before the step's own evidence: a sceptical half a prior
 * spread under the floor, moved by the catalog's strengths (a gate a little higher, or where its
 * two models' own evidence puts it).
 */
export function priorStart(p: Policy, input: DecideInput, own?: ReadonlyMap<string, PolicyStats>): number {
  return gateStart(p, own) ?? input.floor - PRIOR_SE / 2 + (p.kind === 'gate' ? GATE_LIFT : 0) + strengthLift(p, input);
}

/** How often a gate (or a verify policy) is taken to escalate to the baseline before its probes say. */
export const GATE_ESCALATION = 0.3;
/** Probes with a model's answer before its rate of differing from the baseline's says how often a gate of it escalates. */
const MEMBER_PROBES = 10;

/**
 * How often a gate escalates to the baseline before its own probes measure it: as often as its two
 * models' answers differ, read from how often each differs from the baseline's on the step's probes
 * (taken as independent, d₁ + d₂ − d₁d₂). Errors go together, a hard question tripping both, so two
 * models agree more often than that and the gate escalates less: the estimate errs on the dear side,
 * and it ranks the pairs as they rank. On the routing data's `arc_challenge`, mixtral-8x7b with
 * Yi-34B escalates on 14 % of calls (read 21 %), mistral-7b with Yi-34B on 31 % (read 37 %); one
 * figure for every pair (the step's differing share, at least GATE_ESCALATION) priced the first the
 * dearer, and the step spent its trials proving the second. Where a model has too few probes, that figure.
 */
export function gateEscalation(evidence: StepEvidence, p: Policy, baseline: string): number {
  // two programs or two paragraphs never read the same: where answers are free-form, a gate sends every call on
  if (p.kind === 'gate' && evidence.freeForm()) return 1;
  const differing = evidence.differingShare();
  const step = differing.n >= 10 ? Math.max(GATE_ESCALATION, differing.share) : GATE_ESCALATION;
  if (p.kind !== 'gate') return step;
  const a = evidence.disagreement({ kind: 'model', model: p.a }, baseline);
  const b = evidence.disagreement({ kind: 'model', model: p.b }, baseline);
  if (a.n < MEMBER_PROBES || b.n < MEMBER_PROBES) return step;
  return a.rate + b.rate - a.rate * b.rate;
}

/** Below this share of calls with outcomes, probes pay the judge for differing answers. */
export const MIN_OUTCOME_SHARE = 0.1;
/** The one-sided z of PolicyStats' bounds. */
export const Z_STATS = 1;

/** A step's routed traffic as the optimizer counts it. */
export interface StepTraffic {
  calls: number;
  baselineMicros: number;
  actualMicros: number;
  /** What exploring cost on those calls: probes, grades, judge measures (abandoned probes too). */
  exploredMicros: number;
  outcomes: number;
}

/** Share of the step's calls whose outcome the client reports. */
function outcomeShare(t: StepTraffic): number {
  return t.calls > 0 ? Math.min(1, t.outcomes / t.calls) : 0;
}

/**
 * Whether probes pay the judge for answers that differ from the baseline's: yes once a cheap
 * judge grades, or where too few outcomes come to say which answer was right; else the
 * outcome of the probed call does, for free.
 */
function judgesDisagreements(s: { evidence: StepEvidence; traffic: StepTraffic }, input: DecideInput): boolean {
  if (input.judges?.panel.adopted === true || outcomeShare(s.traffic) < MIN_OUTCOME_SHARE) return true;
  // free-form answers rarely agree: counting every differing one as wrong could never prove anything
  const d = s.evidence.differingShare();
  return d.n >= 10 && d.share > FREE_FORM_SHARE;
}

/**
 * What one judge grade is expected to cost over the coming probes, as a share of a baseline
 * call. The configured judge's cost is measured on the step's probes (else priced); a cheaper
 * judge, once adopted, costs its price (a grade, a resampled second grade, a few audits); while
 * its panel is still deciding, the next grades are the configured judge's and the rest the
 * cheaper one's, if it is adopted.
 */
function gradeShare(evidence: StepEvidence, input: DecideInput): number {
  const main = evidence.judgeCostShare() ?? input.judgeShare ?? 1;
  const judges = input.judges;
  if (!judges || (judges.panel.decided && !judges.panel.adopted)) return main;
  const cheap = 2 * judges.cheapShare + AUDIT_SHARE * main;
  if (judges.panel.adopted) return cheap;
  const need = Math.min(PLANNED_GRADES, judges.panel.crossNeeded());
  return (need * main + (PLANNED_GRADES - need) * cheap) / PLANNED_GRADES;
}

/** What a decision knows of its step's probing, worked out once for all its candidates. */
export interface ProbeCosts {
  /** What one judge grade is expected to cost (`gradeShare`). */
  grade: number;
  /** Whether differing answers are graded by the judge (`judgesDisagreements`). */
  judging: boolean;
  /** Share of the step's calls with an outcome (`outcomeShare`). */
  outcomes: number;
}

/** Whether outcomes come on the step (at least MIN_OUTCOME_SHARE of its calls): a trial's answer then teaches for free. */
export function outcomesCome(costs: ProbeCosts): boolean {
  return costs.outcomes >= MIN_OUTCOME_SHARE;
}

export function probeCosts(s: { evidence: StepEvidence; traffic: StepTraffic }, input: DecideInput): ProbeCosts {
  return { grade: gradeShare(s.evidence, input), judging: judgesDisagreements(s, input), outcomes: outcomeShare(s.traffic) };
}

/**
 * A candidate as exploration prices it, or null when it cannot be probed as one policy.
 * `shared`: its statistics were already shrunk toward the tenant's other steps. `own`: every
 * candidate's own statistics on the step, by policy key (where a gate starts: `gateStart`).
 * `anchors`: the policy serving now has direct evidence, so a single model's probe can be compared
 * with its served answer (a chain) instead of paying for the baseline's.
 */
export function prospect(evidence: StepEvidence, costs: ProbeCosts, p: Policy, st: PolicyStats, input: DecideInput, baselineCost: number, servingBaseline: boolean, shared: boolean, own?: ReadonlyMap<string, PolicyStats>, anchors = true): Prospect | null {
  if (p.kind !== 'model' && p.kind !== 'gate' && p.kind !== 'verify') return null;
  const models = policyModels(p);
  const share = (m: string) => input.priceShares?.[m] ?? 0.5;
  const grade = costs.grade;
  const disagree = evidence.disagreement(p, input.baseline);
  const rate = disagree.n >= 10 ? disagree.rate : p.kind === 'gate' ? DEFAULT_DISAGREEMENT / 3 : DEFAULT_DISAGREEMENT;
  const answers = models.reduce((a, m) => a + share(m), 0);
  const measured = Number.isFinite(st.costMicros) && st.n >= 10 ? st.costMicros / baselineCost : undefined;
  // a gate escalates when its two models disagree (`gateEscalation`), always where answers are free-form (two programs
  // never read the same), where a gate saves nothing
  const costShare = measured ?? (p.kind === 'gate' ? answers + gateEscalation(evidence, p, input.baseline) : p.kind === 'verify' ? answers + grade + GATE_ESCALATION : answers);
  // a grade for each answer that disagrees with the baseline's, and the baseline's own; verify grades its answer always;
  // a gate only its agreed answer, unless a cheap judge grades every differing answer of both. Where outcomes
  // come and the judge is dear, differing answers go ungraded: they count against the candidate until an outcome says
  const judging = p.kind === 'verify' || costs.judging;
  // (a probe whose baseline answer runs long is judged where it differs whatever the outcomes: learn.ts)
  const grades = !judging ? 2 * rate * evidence.longShare() : p.kind === 'verify' ? 1 + rate : p.kind === 'gate' && input.judges?.panel.adopted ? 3 * DEFAULT_DISAGREEMENT : 2 * rate;
  // what pays is judged against a sceptical prior (most cheaper candidates fall short of a high bar), moved by
  // the catalog's strengths, unless the tenant's other steps already shrank the estimate toward theirs: a few
  // agreeing probes promise little. A gate whose models both have evidence starts where they put it
  const width = halfWidth(st);
  const start = priorStart(p, input, own);
  const reading = { retention: st.retention, se: st.n > 0 ? width : Infinity, n: st.n };
  const shrunk = shared ? { ...reading, se: width } : posterior(reading, { mean: start, tau: PRIOR_SE, steps: 0 });
  // the sceptical prior only ever pulls an estimate down: lifted toward it, a model the step measured at 0.65 on 29
  // samples read 0.87 and was probed through the measured phase at a payback of 9× (`arc_challenge`, mistral-7b)
  const estimate = st.n > 0 && shrunk.retention > st.retention ? reading : shrunk;
  return {
    key: policyKey(p),
    models,
    n: st.n,
    retention: estimate.retention,
    se: Math.max(estimate.se, 1e-3),
    costShare,
    // serving something other than the baseline, a probe also pays for the baseline's answer to compare with,
    // but a single model is compared with the served answer instead (chained to the served policy's evidence)
    probeShare: answers + (servingBaseline || (p.kind === 'model' && anchors) ? 0 : 1),
    gradesPerProbe: grades,
  };
}
