// A workflow's report (spec 2.7, 4.2): per step what serves it now and the evidence behind
// that, built from the step registry's view (which carries the optimizer's step states).
// The live report is built on each read; finalize freezes one as a numbered version.
import { MIN_PRUNE_SAMPLES } from '../optimizer/optimizer.ts';
import { parsePolicy, primaryModel } from '../optimizer/policies.ts';
import type { StepView } from '../optimizer/registry.ts';

export type Stage = 'tuning' | 'ready' | 'production';

export interface StepEvidenceView {
  /** Graded samples behind the policy. */
  n: number;
  /** Its estimated share of the baseline's quality, and the lower bound that had to clear the floor. */
  retention: number;
  lcb: number;
  /** Its cost as a share of the baseline's. */
  cost_share: number;
}

export interface ReportStep {
  fingerprint: string;
  label: string;
  expected: boolean;
  settled: boolean;
  calls: number;
  /** The policy serving the step (`model:…`, `gate:…`, …); null while the baseline serves by default. */
  policy: string | null;
  /** The model whose answer the policy serves, and the reasoning effort it runs at (null: the request's). */
  model: string | null;
  reasoning_effort: string | null;
  cache: { exact: boolean; semantic: boolean };
  pruning: { enabled: boolean; n: number; retention: number; lcb: number };
  /** The optimizer's evidence for the policy; null when none (the baseline is the yardstick, not a candidate). */
  evidence: StepEvidenceView | null;
  exploration: { spent_usd: number; share_of_baseline: number };
}

/** What a frozen version stores; the live fields (stage, newest version) are added on read. */
export interface ReportBody {
  workflow_id: string;
  quality_floor: number;
  /** Every expected step had settled when the report was made. */
  settled: boolean;
  steps: ReportStep[];
}

export interface Report extends ReportBody {
  stage: Stage;
  /** null for the live report, else the stored version read. */
  version: number | null;
  finalized_at: string | null;
  newest_version: number | null;
  versions: number[];
}

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
