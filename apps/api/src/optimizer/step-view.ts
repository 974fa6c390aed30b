// The optimizer's steps as the step registry and the workflow views show them: whether each
// settled and on what, its exploration and learning, and its cheapest and best-holding candidates.
import type { PolicyStats } from './evidence-types.ts';
import { stepKind, type CandidateView, type StepState } from './step-state.ts';

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The step's candidates for its view: the cheapest, the best-holding, and the gates that save. */
export function candidateView(stats: Map<string, PolicyStats>, baselineCost: number): CandidateView[] {
  const view = [...stats.entries()]
    .filter(([, st]) => st.n > 0 && Number.isFinite(st.costMicros))
    .map(([policy, st]) => ({
      policy,
      n: st.n,
      retention: round(st.retention),
      lcb: round(st.lcb),
      cost_share: round(st.costMicros / baselineCost),
      ...(st.byJudge ? { by_judge: { retention: round(st.byJudge.retention), n: st.byJudge.n } } : {}),
      ...(st.byOutcome ? { by_outcome: { retention: round(st.byOutcome.retention), n: st.byOutcome.n } } : {}),
    }));
  // the cheapest candidates and the best-holding ones
  const byCost = [...view].sort((a, b) => a.cost_share - b.cost_share).slice(0, 6);
  const byLcb = [...view].sort((a, b) => b.lcb - a.lcb).filter((v) => !byCost.includes(v)).slice(0, 6);
  const gates = view.filter((v) => v.policy.startsWith('gate:') && v.cost_share < 1).sort((a, b) => b.lcb - a.lcb).filter((v) => !byCost.includes(v) && !byLcb.includes(v)).slice(0, 4);
  return [...byCost, ...byLcb, ...gates];
}

/** Per step of a workflow: whether it settled and on what. */
export function stepViews(states: Iterable<StepState>, workflowId: string) {
  return [...states]
    .filter((s) => s.key.workflowId === workflowId)
    .map((s) => ({
      fingerprint: s.key.fingerprint,
      label: s.key.label,
      settled: s.settled,
      chosen: s.chosen,
      probes: s.evidence.probes.length,
      served: s.evidence.servedCount,
      judge_error: round(s.evidence.judgeErrorRate()),
      exploration: {
        calls: s.traffic.calls,
        baseline_usd: s.traffic.baselineMicros / 1e6,
        spent_usd: s.traffic.exploredMicros / 1e6,
        share_of_baseline: s.traffic.baselineMicros > 0 ? round(s.traffic.exploredMicros / s.traffic.baselineMicros) : 0,
        payback: round(s.lastPlan.payback),
        rate: round(s.lastPlan.rate),
      },
      pruning: (({ n, retention, lcb }) => ({ n, retention: round(retention), lcb: round(lcb) }))(s.evidence.pruneStats()),
      learning: { risk_budget: round(s.ledger.earned), risk_used: round(Math.min(1, s.riskUsed)), trials: Object.fromEntries(s.ledger.total), kind: stepKind(s) ?? null, kind_declared: s.key.kind !== undefined },
      candidates: s.currentView(),
    }));
}
