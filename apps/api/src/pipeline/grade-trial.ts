// Learning after the answer, for a trial on a step whose calls get no outcomes: the trial's answer
// is graded once it is sent. The baseline answers the same request beside it (a side call, metered
// as the call's exploration); where the two agree the trial's answer is as good as the baseline's,
// where they differ the judge grades both (the tenant's cheap judge once its panel adopts it). The
// result is recorded as a probe for the candidate, paired with the baseline's answer to the same
// request as every probe is: the candidate's answer is the one the client got, the baseline's the
// side answer. A grade of the trial's answer alone, read against the judge's grades of other
// requests, overstated weak candidates (docs/decisions.md, "Learning by serving"). A proven model
// serving such a step has a share of its answers graded the same way until its proof is confirmed
// (decision.ts, `confirms`).
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import { agree } from '../optimizer/normalize.ts';
import { storedProbe, type Probe } from '../optimizer/evidence.ts';
import { parsePolicy } from '../optimizer/policies.ts';
import { evidenceText } from './capture-stage.ts';
import { attemptCost, explorationSpend } from './meter-call.ts';
import { grade } from './judge-grade.ts';
import { runOn, type Named, type RoutedPlan } from './routed-plan.ts';

/** The policy whose served answer the decision asked to have graded after it is sent: a trial's, or a proven model's it confirms. */
function gradedPolicy(plan: RoutedPlan): string | undefined {
  const d = plan.decision;
  return d.gradeTrial === true && d.trial !== undefined ? d.trial.policy : d.confirm;
}

/** Whether the decision asked for the served answer to be graded after it is sent (a trial's, or a proof's confirmation). */
export function gradesTrial(plan: RoutedPlan): boolean {
  return gradedPolicy(plan) !== undefined;
}

/** Grades a trial's (or a confirmed model's) served answer against the baseline's answer to the same request, and records it as the model's probe. */
export async function gradeTrial(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, served: Named): Promise<void> {
  const key = gradedPolicy(plan);
  if (!key || !served.answer) return;
  const policy = parsePolicy(key);
  if (policy.kind !== 'model') return; // only a model's answer stands for its policy alone
  if (served.name !== policy.model) return; // the quality gate escalated: the answer sent is the baseline's, not the model's
  const baseline = await runOn(ctx, s, signal, plan.baseline, 'probe').catch(() => undefined);
  if (!baseline?.answer) return; // a side call that failed says nothing
  const same = agree(served.answer, baseline.answer);
  const judged = async (text: string) => {
    const spent = { micros: 0 };
    return { score: await grade(ctx, s, signal, plan, text, 'judge', spent), micros: spent.micros };
  };
  // the judge grades the two where they differ, and the baseline's at random while its quality is not known
  const [base, mine] = await Promise.all([!same || plan.decision.sampleBaseline ? judged(baseline.answer) : null, same ? null : judged(served.answer)]);
  if (base?.score === null || mine?.score === null) return; // the judge gave no grade: no evidence
  const probe: Probe = {
    at: Date.now(),
    policy: key,
    ...(plan.decision.sampleBaseline ? { baselineSampled: true } : {}),
    spentMicros: explorationSpend(ctx),
    judgeCostMicros: Math.max(base?.micros ?? 0, mine?.micros ?? 0),
    baselineScore: base?.score ?? null,
    baselineText: baseline.answer,
    baselineCostMicros: attemptCost(baseline.attempt),
    answers: { [policy.model]: { text: served.answer, score: mine?.score ?? null, costMicros: attemptCost(served.attempt), ...(mine ? { judgeCostMicros: mine.micros } : {}) } },
  };
  ctx.evidence.push(s.optimizer.recordProbe(plan.step, storedProbe(probe, evidenceText(ctx))));
}
