// What one probe says of a policy: its answer's score against the baseline's answer (or, for a
// probe waiting for its call's outcome, whether it agrees and how the difference was resolved),
// and what serving the policy on that request would have cost.
import type { Linked } from './estimates.ts';
import type { Probe, ProbeAnswer } from './evidence-types.ts';
import { policyKey, type Policy } from './policies.ts';
import type { TwoWay } from './answer-choices.ts';
import { baseKey, keyOf, same } from './stored-probe.ts';

/**
 * An answer's score minus that of the answer the probe compared it with: 0 when they agree,
 * the judge's difference when both were graded, else unknown.
 */
export function gradedDiff(p: Probe, a: ProbeAnswer): number | null {
  if (keyOf(a) === baseKey(p)) return 0;
  return a.score !== null && p.baselineScore !== null ? a.score - p.baselineScore : null;
}

function scoreOf(p: Probe, model: string): number | null {
  const a = p.answers[model];
  if (!a) return null;
  if (a.score !== null) return a.score;
  return keyOf(a) === baseKey(p) ? (p.baselineScore ?? null) : null;
}

/** Whether a probe made for one candidate graded all that `policy`'s evidence needs. */
function covers(p: Probe, policy: Policy): boolean {
  if (p.policy === policyKey(policy)) return true;
  // a verify probe grades its model's answer always, a complete probe every differing answer: evidence for each model alone
  if (policy.kind !== 'model') return p.complete === true && policy.kind === 'gate' && p.answers[policy.a] !== undefined && p.answers[policy.b] !== undefined;
  return p.policy === `verify:${policy.model}` || (p.complete === true && p.answers[policy.model] !== undefined);
}

/** Whether a probe's differing answers wait for its call's outcome, for a policy its answers can speak for. */
function linkedToOutcome(p: Probe, policy: Policy): boolean {
  return (p.outcome !== undefined || p.awaitsOutcome === true) && p.policy !== undefined && !p.reference && (policy.kind === 'model' || policy.kind === 'gate');
}

/**
 * What a differing, ungraded answer is taken to gain where the outcome says the baseline's was
 * wrong and the step's questions are not two-way: it may be right or wrong too (one of several
 * wrong choices, or free-form): half-way, where counting it as wrong read every candidate of a step
 * whose baseline is often wrong as far worse than its outcomes showed. On a two-way question
 * (`twoWayChoices`) it is right when it is the other choice, and wrong when it is neither: read
 * half-way there too, a candidate a third better than a baseline right half the time was read as
 * its equal (winogrande: mixtral against llama-2-70b, 1.35 of it, read 1.01), its catalog prior
 * was never overruled, and it was tried too rarely to be proven in 800 calls.
 */
const UNRESOLVED_GAIN = 0.5;

/**
 * A probe that waits for its call's outcome. An answer that agrees with the baseline's shares
 * its score (known at once, whatever the outcome); one that differs is resolved by the judge's
 * grade when it has one, else by the outcome when it comes (the baseline's answer is then
 * right, and the differing one is counted as wrong, or wrong, and the differing one half-way:
 * UNRESOLVED_GAIN), else it is
 * pending: most never get an outcome, and `linkedEstimate` reads them through the ones that did.
 */
function outcomeDiff(p: Probe, policy: Policy, baselineModel: string, choices: TwoWay): { diff: number | null; differs: boolean; judged: boolean; cost: number } | null {
  const differs = (model: string, cost: number) => {
    const a = p.answers[model]!;
    const graded = gradedDiff(p, a);
    if (graded === 0) return { diff: 0, differs: false, judged: false, cost };
    if (graded !== null) return { diff: graded, differs: true, judged: true, cost };
    // on a two-way question: the other choice is right, an answer that is neither is wrong, and a choice beside a baseline
    // answer that was neither is right or wrong alike
    const gain = !choices ? UNRESOLVED_GAIN : !choices.includes(keyOf(a)) ? 0 : choices.includes(baseKey(p)) ? 1 : UNRESOLVED_GAIN;
    return { diff: p.outcome === undefined ? null : -p.outcome + (1 - p.outcome) * gain, differs: true, judged: false, cost };
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
function probeDiff(p: Probe, policy: Policy, baselineModel: string): { diff: number; cost: number } | null {
  if (p.reference) return null; // compared with another policy's answer, not the baseline's: see StepEvidence's chained estimates
  if (p.awaitsOutcome) return null; // read by outcomeDiff, or no evidence for this policy
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

/**
 * A policy's evidence over a step's probes: the graded differences and costs of the probes
 * compared with the baseline, and those linked to their calls' outcomes. Where answers are
 * free-form, a differing answer says nothing until the judge grades it: an outcome only tells
 * whether the baseline's was right.
 * `choices`: the step's two answers where its questions are two-way (`twoWayChoices`), else null.
 */
export function probedFor(probes: readonly Probe[], policy: Policy, baselineModel: string, freeForm: boolean, choices: TwoWay): { diffs: number[]; costs: number[]; linked: Linked } {
  const probed: { diffs: number[]; costs: number[]; linked: Linked } = { diffs: [], costs: [], linked: { agree: 0, pending: 0, resolved: [] } };
  for (const p of probes) {
    if (linkedToOutcome(p, policy)) {
      const o = outcomeDiff(p, policy, baselineModel, choices);
      if (o === null || (freeForm && o.differs && !o.judged)) continue;
      probed.costs.push(o.cost);
      if (!o.differs) probed.linked.agree++;
      else if (o.diff === null) probed.linked.pending++;
      else probed.linked.resolved.push({ diff: o.diff, judged: o.judged });
      continue;
    }
    const d = probeDiff(p, policy, baselineModel);
    if (d === null) continue;
    probed.diffs.push(d.diff);
    probed.costs.push(d.cost);
  }
  return probed;
}
