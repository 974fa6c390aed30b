// Learning after the answer: what a routed call teaches its step once the client has its
// answer (or its stream has ended). Probes of candidate models on the same request, the
// baseline's answer where another policy served, the judge's grades of the answers that
// differ, regrades, the unpruned shadow and drift checks all run here, in the learning queue
// (learning-queue.ts), never on the request path. Their spend is metered on the call that
// caused it, in a line of its own (meter-learning.ts), and settled on the share of the call's
// reservation set apart for it (budget-stage.ts).
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import type { Completed } from './complete.ts';
import { completeOn } from './complete.ts';
import { agree, normalizeAnswer } from '../optimizer/normalize.ts';
import { storedProbe, type Probe, type ProbeAnswer } from '../optimizer/evidence.ts';
import { runsLong } from '../optimizer/stored-probe.ts';
import { evidenceText } from './capture-stage.ts';
import { policyKey } from '../optimizer/policies.ts';
import { attemptCost, explorationSpend } from './meter-call.ts';
import { askJudge, grade } from './judge-grade.ts';
import { gradesTrial, gradeTrial } from './grade-trial.ts';
import { candidate, runOn, type Named, type RoutedPlan } from './routed-plan.ts';
import type { ChatBody } from '../providers/types.ts';

const costOf = (c: Completed) => attemptCost(c.attempt);

/** Whether a routed call has anything to learn once it is answered. */
export function learnsAfter(plan: RoutedPlan): boolean {
  const d = plan.decision;
  return d.probe.length > 0 || d.check === true || gradesTrial(plan) || (d.gradeForTruth === true && plan.panel !== undefined && plan.runCall !== undefined);
}

/**
 * Records one probe of evidence for the candidate policy the decision named. Its answers
 * are compared with the baseline's first (free); the judge is paid only for answers that
 * differ (and then for the baseline's too), for a verify candidate's own answer, and for
 * the baseline's answer on a random share of probes (the bar every policy is held to).
 */
async function explore(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, served: Named): Promise<void> {
  const settled = await Promise.allSettled(plan.decision.probe.map((m) => runOn(ctx, s, signal, m, 'probe')));
  const answers = new Map<string, Completed>();
  plan.decision.probe.forEach((m, i) => {
    const r = settled[i]!;
    if (r.status === 'fulfilled' && r.value.answer) answers.set(m, r.value);
  });
  if (answers.size < plan.decision.probe.length) return; // a probe that failed says nothing
  // a model probed while another policy serves is compared with whatever that policy served, on every
  // call alike (escalated ones too: comparing only where it did not escalate would be a biased sample)
  const reference = plan.decision.chained ? policyKey(plan.decision.policy) : undefined;
  let baseline: Completed | undefined = served.name === plan.baseline || reference ? served : undefined;
  if (!baseline) {
    baseline = await runOn(ctx, s, signal, plan.baseline, 'probe').catch(() => undefined);
    if (!baseline) return;
  }
  const base = baseline.answer;
  const policy = plan.decision.probing ?? '';
  const [a, b] = [...answers.values()];
  // the answers to grade, one per normalized form
  const toGrade = new Map<string, string>();
  const need = (...texts: string[]) => {
    for (const t of texts) if (!toGrade.has(normalizeAnswer(t))) toGrade.set(normalizeAnswer(t), t);
  };
  // with a cheap judge, every answer that differs is graded (evidence for each model too); else a gate's agreed answer only;
  // where outcomes come and the judge is dear, none: the outcome of this call will say (chained probes have no outcome to go by)
  // where the baseline's answer runs long (code, prose), a differing answer is not wrong because the baseline's was
  // right: the outcome cannot resolve it, so the judge grades it even where outcomes come
  const grading = plan.decision.gradeDiffering !== false || reference !== undefined || runsLong(base);
  const complete = grading && (!policy.startsWith('gate:') || plan.panel?.adopted === true);
  if (!grading) {
    // no grades: the probe waits for this call's outcome
  } else if (!complete) {
    // a gate serves only when its two answers agree: only an agreed answer that differs from the baseline's needs grades
    if (a && b && agree(a.answer, b.answer) && !agree(a.answer, base)) need(a.answer, base);
  } else if (b) {
    for (const c of [a!, b]) if (!agree(c.answer, base)) need(c.answer, base);
  } else if (a) {
    if (policy.startsWith('verify:')) need(a.answer);
    if (!agree(a.answer, base)) need(a.answer, base);
  }
  const sampled = plan.decision.sampleBaseline && !reference;
  if (sampled) need(base);
  const grades = new Map<string, { score: number | null; micros: number }>();
  await Promise.all(
    [...toGrade].map(async ([norm, text]) => {
      const spent = { micros: 0 };
      grades.set(norm, { score: await grade(ctx, s, signal, plan, text, 'judge', spent), micros: spent.micros });
    }),
  );
  const gradeOf = (text: string) => grades.get(normalizeAnswer(text));
  const baselineGrade = gradeOf(base);
  if (baselineGrade && baselineGrade.score === null) return; // the judge gave no grade: no evidence
  // now and then the baseline's answer is graded twice: how often the judge disagrees with itself
  const regrade = plan.decision.regrade && baselineGrade?.score != null ? await grade(ctx, s, signal, plan, base) : null;
  const unpruned = reference ? null : await answerUnpruned(ctx, s, signal, plan, base);
  const judgeMicros = Math.max(0, ...[...grades.values()].map((g) => g.micros));
  const probe: Probe = {
    at: Date.now(),
    policy,
    // the call's outcome will be the truth for this probe's baseline answer only if that answer is what the client got
    ...(served.name === plan.baseline ? { call: ctx.id } : {}),
    ...(reference ? { reference } : {}),
    ...(sampled ? { baselineSampled: true } : {}),
    ...(complete ? { complete: true } : {}),
    ...(!grading ? { awaitsOutcome: true } : {}),
    spentMicros: explorationSpend(ctx),
    judgeCostMicros: judgeMicros,
    baselineScore: baselineGrade?.score ?? null,
    ...(regrade !== null ? { baselineRegrade: regrade } : {}),
    ...(unpruned ? { unpruned } : {}),
    baselineText: base,
    baselineCostMicros: costOf(baseline),
    answers: {},
  };
  for (const [m, c] of answers) {
    const g = gradeOf(c.answer);
    if (g && g.score === null) return; // an answer the judge could not grade leaves the probe incomplete
    const same = agree(c.answer, base);
    const answer: ProbeAnswer = { text: c.answer, score: same && !policy.startsWith('verify:') ? null : (g?.score ?? null), costMicros: costOf(c), ...(g ? { judgeCostMicros: g.micros } : {}) };
    probe.answers[m] = answer;
  }
  // evidence keeps the answers' texts only as the tenant's capture allows; else what agreement compares
  ctx.evidence.push(s.optimizer.recordProbe(plan.step, storedProbe(probe, evidenceText(ctx))));
}

/**
 * While the tenant's cheap judge is unproven, it grades the answer a client receives on a call
 * whose outcome the client may report (the step gets outcomes, and exploring it is in sight): that outcome, when it comes,
 * measures the judge against the truth, for the price of a cheap grade and no configured
 * judge's. Only a baseline answer: the judge is measured where it grades.
 */
async function gradeForTruth(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, served: Named): Promise<void> {
  const panel = plan.panel;
  if (!panel || !plan.runCall || served.name !== plan.baseline || !panel.wantsTruth() || !plan.decision.gradeForTruth) return;
  const g = await askJudge(ctx, s, signal, panel.cheap, (ctx.body.messages as unknown[]) ?? [], served.answer, 'judge');
  plan.runCall.truthGrade = { judge: plan.judge, cheap: panel.cheap, score: g.score };
  ctx.route!.reasons.push(`judge measure: ${panel.cheap} graded this answer, to be measured against its outcome before it may judge for ${plan.judge}`);
}

/**
 * When pruning changed this request: the baseline's answer to the request as the client
 * sent it, graded unless it agrees with its answer to the pruned one (pruning's evidence).
 */
async function answerUnpruned(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, prunedAnswer: string): Promise<{ text: string; score: number | null } | null> {
  if (!ctx.unprunedMessages) return null;
  const body = { ...ctx.body, model: plan.baseline, messages: ctx.unprunedMessages } as ChatBody;
  const c = await completeOn(ctx, s, signal, candidate(s, plan.baseline), 'probe', body).catch(() => null);
  if (!c?.answer) return null;
  if (agree(c.answer, prunedAnswer)) return { text: c.answer, score: null };
  const score = await grade(ctx, s, signal, plan, c.answer, 'judge', undefined, ctx.unprunedMessages);
  return score === null ? null : { text: c.answer, score };
}

/** Everything the step learns from an answered call: probes, the cheap judge's truth grade, a drift check. */
export async function learnFrom(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, served: Named): Promise<void> {
  if (plan.decision.probe.length > 0) await explore(ctx, s, signal, plan, served).catch(() => undefined);
  if (gradesTrial(plan)) await gradeTrial(ctx, s, signal, plan, served).catch(() => undefined);
  await gradeForTruth(ctx, s, signal, plan, served);
  if (plan.decision.check && !signal.aborted) {
    const score = await grade(ctx, s, signal, plan, served.answer);
    if (score !== null) {
      const key = policyKey(plan.decision.policy);
      const { row, events } = s.optimizer.recordServed(plan.step, { at: Date.now(), policy: key, score, source: 'judge' }, plan.baseline, plan.floor);
      ctx.evidence.push(row);
      ctx.events.push(...events);
    }
  }
}
