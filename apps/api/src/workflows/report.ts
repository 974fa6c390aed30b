// A workflow's report (spec 2.7, 4.2): per step what serves it now and the evidence behind
// that, built from the step registry's view (which carries the optimizer's step states).
// The live report is built on each read; finalize freezes one as a numbered version.
import { MIN_PRUNE_SAMPLES } from '../optimizer/optimizer.ts';
import { parsePolicy, primaryModel } from '../optimizer/policies.ts';
import type { StepView } from '../optimizer/registry.ts';
import type { ReportBody, ReportStep } from '@optimizer/schema';

/** `model@effort` names the baseline at a lower reasoning effort (plan-routed's effort variants). */
export function splitEffort(name: string): { model: string; effort: string | null } {
  const at = name.lastIndexOf('@');
  return at > 0 ? { model: name.slice(0, at), effort: name.slice(at + 1) } : { model: name, effort: null };
}

export function reportStep(v: StepView, floor: number): ReportStep {
  const policy = v.chosen;
  const primary = policy ? splitEffort(primaryModel(parsePolicy(policy))) : null;
  const ev = policy ? v.candidates.find((c) => c.policy === policy) : undefined;
  return {
    fingerprint: v.fingerprint,
    label: v.label,
    expected: v.expected,
    settled: v.settled,
    calls: v.calls,
    policy,
    model: primary?.model ?? null,
    reasoning_effort: primary?.effort ?? null,
    cache: { exact: true, semantic: !v.semantic_cache.disabled },
    // the optimizer's own rule for pruning a settled step: proven on enough compared requests
    pruning: { enabled: v.pruning.n >= MIN_PRUNE_SAMPLES && v.pruning.lcb >= floor, ...v.pruning },
    evidence: ev ? { n: ev.n, retention: ev.retention, lcb: ev.lcb, cost_share: ev.cost_share } : null,
    exploration: { spent_usd: v.exploration.spent_usd, share_of_baseline: v.exploration.share_of_baseline },
  };
}

export function reportBody(workflowId: string, steps: StepView[], floor: number): ReportBody {
  const expected = steps.filter((s) => s.expected);
  return {
    workflow_id: workflowId,
    quality_floor: floor,
    settled: expected.length > 0 && expected.every((s) => s.settled),
    steps: steps.map((s) => reportStep(s, floor)),
  };
}
