// The lockfile (spec 2.7, 9; design §9): derived from the newest stored report, per
// expected step the pinned policy, reasoning effort, cache and pruning policy with the
// evidence behind them. A workflow in production routes by it.
import type { LockedStep } from '../optimizer/optimizer.ts';
import { parsePolicy, policyModels } from '../optimizer/policies.ts';
import type { Lockfile, ReportBody } from '@optimizer/schema';
import { splitEffort } from './report.ts';

export function lockfileOf(body: ReportBody, version: number, finalizedAt: string): Lockfile {
  return {
    lockfile_version: 1,
    workflow_id: body.workflow_id,
    report_version: version,
    finalized_at: finalizedAt,
    quality_floor: body.quality_floor,
    steps: body.steps
      .filter((s) => s.expected)
      .map((s) => ({ fingerprint: s.fingerprint, label: s.label, policy: s.policy, model: s.model, reasoning_effort: s.reasoning_effort, cache: s.cache, pruning: s.pruning, evidence: s.evidence })),
  };
}

/**
 * What the lockfile pins for one call's step: its policy when every model it needs can
 * serve this request; else (a step it does not name, one finalized without a proven
 * policy, or a pinned model now disabled or unreachable) the baseline, still without probes.
 */
export function lockedStep(lock: Lockfile, fingerprint: string, baseline: string, usable: (model: string) => boolean): LockedStep {
  const entry = lock.steps.find((s) => s.fingerprint === fingerprint);
  const base = { version: lock.report_version, prune: entry?.pruning.enabled ?? false };
  if (!entry) return { ...base, policy: `model:${baseline}`, note: 'a step the lockfile does not name is served by the baseline' };
  if (!entry.policy) return { ...base, policy: `model:${baseline}`, note: 'the step had no proven policy when the report was finalized' };
  const missing = policyModels(parsePolicy(entry.policy)).map((m) => splitEffort(m).model).filter((m) => m !== baseline && !usable(m));
  if (missing.length) return { ...base, policy: `model:${baseline}`, note: `${missing.join(', ')} cannot serve now (disabled or unreachable), so the baseline stands in` };
  return { ...base, policy: entry.policy };
}
