// Stage: dispatch for a routed (`auto`) call. Serves the decided policy — one model,
// or a gate of two cheap models that escalates to the baseline when they disagree —
// behind the quality gate, and while the step is open probes candidate models on
// the same request and has the judge grade the distinct answers.
import { randomInt } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Candidate, CallContext } from './context.ts';
import { completeOn, type Completed } from './complete.ts';
import { agree, normalizeAnswer } from '../optimizer/normalize.ts';
import { judgeBody, parseGrade } from '../optimizer/judge.ts';
import { storedProbe, type Probe, type ProbeAnswer } from '../optimizer/evidence.ts';
import { evidenceText } from '../capture/recorder.ts';
import type { Decision, StepKey } from '../optimizer/optimizer.ts';
import { JudgePanel } from '../optimizer/judge-panel.ts';
import type { RunCall } from '../optimizer/outcomes.ts';
import { policyKey } from '../optimizer/policies.ts';
import { attemptCost, explorationSpend } from './meter-call.ts';
import { validateAnswer } from './quality-gate.ts';
import { serveEnsemble } from './ensembles.ts';
import type { ChatBody } from '../providers/types.ts';

export interface RoutedPlan {
  decision: Decision;
  step: StepKey;
  baseline: string;
  judge: string;
  /** The tenant's panel of the configured judge and a cheaper candidate (none without a cheaper model). */
  panel?: JudgePanel;
  /** The call as remembered for its run's outcome (annotated calls only). */
  runCall?: RunCall;
  floor: number;
}

function candidate(s: Services, model: string): Candidate {
  const p = s.catalog.get(model);
  return { model, provider: p?.provider ?? 'openai', profile: p };
}

/**
 * Runs one named candidate: a model, or `model@effort` — the same model at a lower
 * reasoning effort (test-time compute as a candidate like a cheaper model).
 */
async function runOn(ctx: CallContext, s: Services, signal: AbortSignal, name: string, role: 'serve' | 'probe'): Promise<Completed & { name: string }> {
  const at = name.lastIndexOf('@');
  const model = at > 0 ? name.slice(0, at) : name;
  const body = at > 0 ? ({ ...ctx.body, model, reasoning_effort: name.slice(at + 1) } as unknown as ChatBody) : undefined;
  const c = await completeOn(ctx, s, signal, candidate(s, model), role, body);
  return Object.assign(c, { name });
}

async function serveOne(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, model: string): Promise<Completed & { name: string }> {
  const c = await runOn(ctx, s, signal, model, 'serve');
  const problem = model === plan.baseline ? null : validateAnswer(ctx.body, c);
  if (!problem) return c;
  // the quality gate: a downshifted answer that fails validation escalates, and counts against its policy
  c.attempt.outcome = 'error';
  ctx.route!.reasons.push(`quality gate: ${model}'s answer ${problem}; escalated to ${plan.baseline}`);
  const { row } = s.optimizer.recordServed(plan.step, { at: Date.now(), policy: `model:${model}`, score: 0, source: 'judge' }, plan.baseline, plan.floor);
  ctx.evidence.push(row);
  return runOn(ctx, s, signal, plan.baseline, 'serve');
}

async function servePolicy(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan): Promise<Completed & { name: string }> {
  const p = plan.decision.policy;
  if (p.kind === 'model') return serveOne(ctx, s, signal, plan, p.model);
  if (p.kind === 'verify') {
    const c = await runOn(ctx, s, signal, p.model, 'serve');
    const score = validateAnswer(ctx.body, c) ? 0 : await grade(ctx, s, signal, plan, c.answer, 'serve');
    if (score !== null && score >= 0.5) {
      ctx.route!.reasons.push(`verify: the judge passed ${p.model}'s answer (${score})`);
      return c;
    }
    ctx.route!.reasons.push(`verify: the judge failed ${p.model}'s answer; escalated to ${plan.baseline}`);
    return runOn(ctx, s, signal, plan.baseline, 'serve');
  }
  return serveEnsemble(p, {
    run: (name) => runOn(ctx, s, signal, name, 'serve'),
    usable: (c) => !validateAnswer(ctx.body, c),
    baseline: plan.baseline,
    reasons: ctx.route!.reasons,
  });
}

/** One judge model's grade of `answer` to `messages`, and what it cost; a null score when it gave none. */
async function askJudge(ctx: CallContext, s: Services, signal: AbortSignal, model: string, messages: unknown[], answer: string, role: 'judge' | 'serve', resample = false): Promise<{ score: number | null; micros: number }> {
  try {
    const structured = s.catalog.get(model)?.structured_outputs ?? true;
    const c = await completeOn(ctx, s, signal, candidate(s, model), role, judgeBody(model, messages, answer, { structured, resample }) as ChatBody);
    return { score: parseGrade(c.answer), micros: costOf(c) };
  } catch {
    return { score: null, micros: 0 };
  }
}

/**
 * The judge's grade of an answer to this call's request (or to `messages`); null when it
 * gives none. The cheaper judge grades once its panel has adopted it (a small share is
 * audited by the configured judge); until then the configured judge grades and the
 * cheaper one grades beside it, and now and then twice, to measure both.
 */
async function grade(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, answer: string, role: 'judge' | 'serve' = 'judge', spent?: { micros: number }, messages = (ctx.body.messages as unknown[]) ?? []): Promise<number | null> {
  const ask = (model: string, as: 'judge' | 'serve', resample = false) => askJudge(ctx, s, signal, model, messages, answer, as, resample);
  const panel = plan.panel;
  const pair = (kind: 'cross' | 'self', a: number | null, b: number | null) => ctx.evidence.push(s.optimizer.recordJudgePair(plan.step, panel!, JudgePanel.pair(kind, a, b)));
  let used: { score: number | null; micros: number };
  if (!panel) used = await ask(plan.judge, role);
  else if (role === 'serve') used = await ask(panel.adopted ? panel.cheap : plan.judge, role); // serving grades, measures nothing
  else if (panel.adopted) {
    used = await ask(panel.cheap, role);
    if (panel.wantsCross(randomInt(0, 1_000_000) / 1_000_000)) pair('cross', (await ask(plan.judge, 'judge')).score, used.score);
    if (panel.wantsSelf()) pair('self', used.score, (await ask(panel.cheap, 'judge', true)).score);
  } else {
    // until the panel decides, the cheaper judge grades beside the configured one (cheap), and twice while it needs self pairs
    const measuring = panel.wantsCross(0) || panel.wantsSelf();
    const [main, cheap] = await Promise.all([ask(plan.judge, role), measuring ? ask(panel.cheap, 'judge') : null]);
    used = main;
    if (cheap) pair('cross', main.score, cheap.score);
    if (cheap && panel.wantsSelf()) pair('self', cheap.score, (await ask(panel.cheap, 'judge', true)).score);
  }
  if (spent) spent.micros = Math.max(spent.micros, used.micros);
  return used.score;
}

const costOf = (c: Completed) => attemptCost(c.attempt);

/**
 * Records one probe of evidence for the candidate policy the decision named. Its answers
 * are compared with the baseline's first (free); the judge is paid only for answers that
 * differ (and then for the baseline's too), for a verify candidate's own answer, and for
 * the baseline's answer on a random share of probes (the bar every policy is held to).
 */
async function explore(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, served: Completed & { name: string }, probes: Promise<PromiseSettledResult<Completed>[]>): Promise<void> {
  const settled = await probes;
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
  const grading = plan.decision.gradeDiffering !== false || reference !== undefined;
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
async function gradeForTruth(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, served: Completed & { name: string }): Promise<void> {
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
async function answerUnpruned(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, prunedAnswer: string): Promise<{ text: string; score: number | null } | null> {
  if (!ctx.unprunedMessages) return null;
  const body = { ...ctx.body, model: plan.baseline, messages: ctx.unprunedMessages } as ChatBody;
  const c = await completeOn(ctx, s, signal, candidate(s, plan.baseline), 'probe', body).catch(() => null);
  if (!c?.answer) return null;
  if (agree(c.answer, prunedAnswer)) return { text: c.answer, score: null };
  const score = await grade(ctx, s, signal, plan, c.answer, 'judge', undefined, ctx.unprunedMessages);
  return score === null ? null : { text: c.answer, score };
}

export async function serveRouted(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan): Promise<Completed> {
  const probing = plan.decision.probe.length > 0;
  const probes = probing ? Promise.allSettled(plan.decision.probe.map((m) => runOn(ctx, s, signal, m, 'probe'))) : null;
  let served: Completed & { name: string };
  try {
    served = await servePolicy(ctx, s, signal, plan);
  } catch (e) {
    if (probes) await probes; // their spend is metered with the failed call
    throw e instanceof ApiError ? e : new ApiError('upstream_error', String(e));
  }
  ctx.served = served.attempt;
  Object.assign(ctx.route!, { model: served.attempt.model, provider: served.attempt.provider, profile: served.attempt.profile });
  if (probes) await explore(ctx, s, signal, plan, served, probes).catch(() => undefined);
  await gradeForTruth(ctx, s, signal, plan, served);
  if (plan.decision.check) {
    const score = await grade(ctx, s, signal, plan, served.answer);
    if (score !== null) {
      const key = policyKey(plan.decision.policy);
      const { row, events } = s.optimizer.recordServed(plan.step, { at: Date.now(), policy: key, score, source: 'judge' }, plan.baseline, plan.floor);
      ctx.evidence.push(row);
      ctx.events.push(...events);
    }
  }
  return served;
}
