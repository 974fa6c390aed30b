// Stage: dispatch for a routed (`auto`) call. Serves the decided policy — one model,
// or a gate of two cheap models that escalates to the baseline when they disagree —
// behind the quality gate, and while the step is open probes candidate models on
// the same request and has the judge grade the distinct answers.
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Candidate, CallContext } from './context.ts';
import { completeOn, type Completed } from './complete.ts';
import { agree, normalizeAnswer } from '../optimizer/normalize.ts';
import { judgeBody, parseGrade } from '../optimizer/judge.ts';
import type { Probe, ProbeAnswer } from '../optimizer/evidence.ts';
import type { Decision, StepKey } from '../optimizer/optimizer.ts';
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

/** The judge's grade of an answer to this call's request (or to `messages`); null when it gives none. */
async function grade(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, answer: string, role: 'judge' | 'serve' = 'judge', spent?: { micros: number }, messages = (ctx.body.messages as unknown[]) ?? []): Promise<number | null> {
  try {
    const c = await completeOn(ctx, s, signal, candidate(s, plan.judge), role, judgeBody(plan.judge, messages, answer) as ChatBody);
    if (spent) spent.micros = Math.max(spent.micros, costOf(c));
    return parseGrade(c.answer);
  } catch {
    return null;
  }
}

const costOf = (c: Completed) => attemptCost(c.attempt);

/** Probes the open candidates, grades the distinct answers, and records one probe of evidence. */
async function explore(ctx: CallContext, s: Services, signal: AbortSignal, plan: RoutedPlan, served: Completed & { name: string }, probes: Promise<PromiseSettledResult<Completed>[]>): Promise<void> {
  const settled = await probes;
  const answers = new Map<string, Completed>();
  plan.decision.probe.forEach((m, i) => {
    const r = settled[i]!;
    if (r.status === 'fulfilled' && r.value.answer) answers.set(m, r.value);
  });
  let baseline: Completed | undefined = served.name === plan.baseline ? served : answers.get(plan.baseline);
  if (!baseline) {
    baseline = await runOn(ctx, s, signal, plan.baseline, 'probe').catch(() => undefined);
    if (!baseline) return;
  }
  // grade each distinct answer once; an answer that agrees with the baseline's needs no grade
  const distinct = new Map<string, { score: number | null; judgeMicros: number }>();
  const needs = new Set<string>();
  for (const [m, c] of answers) if (m !== plan.baseline && !agree(c.answer, baseline.answer)) needs.add(normalizeAnswer(c.answer));
  // the baseline's own answer is always graded: an unbiased measure of the bar every policy is held to
  needs.add(normalizeAnswer(baseline.answer));
  const judgeSpend = { micros: 0 };
  await Promise.all(
    [...needs].map(async (norm) => {
      const text = norm === normalizeAnswer(baseline.answer) ? baseline.answer : [...answers.values()].find((c) => normalizeAnswer(c.answer) === norm)!.answer;
      const spent = { micros: 0 };
      distinct.set(norm, { score: await grade(ctx, s, signal, plan, text, 'judge', spent), judgeMicros: spent.micros });
      judgeSpend.micros = Math.max(judgeSpend.micros, spent.micros);
    }),
  );
  const baselineGrade = distinct.get(normalizeAnswer(baseline.answer));
  // now and then the baseline's answer is graded twice: how often the judge disagrees with itself
  const regrade = plan.decision.regrade && baselineGrade?.score != null ? await grade(ctx, s, signal, plan, baseline.answer) : null;
  const unpruned = await answerUnpruned(ctx, s, signal, plan, baseline.answer);
  const probe: Probe = {
    at: Date.now(),
    spentMicros: explorationSpend(ctx),
    judgeCostMicros: judgeSpend.micros,
    baselineScore: baselineGrade?.score ?? null,
    ...(regrade !== null ? { baselineRegrade: regrade } : {}),
    ...(unpruned ? { unpruned } : {}),
    baselineText: baseline.answer,
    baselineCostMicros: costOf(baseline),
    answers: {},
  };
  for (const [m, c] of answers) {
    if (m === plan.baseline) continue;
    const norm = normalizeAnswer(c.answer);
    const same = agree(c.answer, baseline.answer);
    const graded = same ? baselineGrade : distinct.get(norm);
    const a: ProbeAnswer = { text: c.answer, score: same ? null : (graded?.score ?? null), costMicros: costOf(c), judgeCostMicros: graded?.judgeMicros };
    if (a.score === null && !agree(c.answer, baseline.answer)) continue; // ungraded: no evidence
    probe.answers[m] = a;
  }
  ctx.evidence.push(s.optimizer.recordProbe(plan.step, probe));
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
