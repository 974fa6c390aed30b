// Stage: dispatch for a routed (`auto`) call. Serves the decided policy — one model, a gate
// of two cheap models that escalates to the baseline when they disagree, or a cheap model a
// judge verifies — behind the quality gate. What the step learns from the call (probes of
// candidates, judge grades) runs after the answer is sent (learn.ts), never here.
import { ApiError } from '../errors.ts';
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import { holdsStream } from './held-stream.ts';
import { explorationSpend } from './meter-call.ts';
import type { Served } from './outcome.ts';
import { validateAnswer } from './quality-gate.ts';
import { serveEnsemble } from './ensembles.ts';
import { grade } from './judge-grade.ts';
import { runOn, type Named, type RoutedPlan } from './routed-plan.ts';

async function serveOne(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, model: string): Promise<Named> {
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

async function servePolicy(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan): Promise<Named> {
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

/** Serves a routed JSON call by its policy; the answer the client gets, and which candidate gave it. */
export async function serveRouted(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan): Promise<Named> {
  let served: Named;
  try {
    served = await servePolicy(ctx, s, signal, plan);
  } catch (e) {
    throw e instanceof ApiError ? e : new ApiError('upstream_error', String(e));
  }
  ctx.served = served.attempt;
  Object.assign(ctx.route!, { model: served.attempt.model, provider: served.attempt.provider, profile: served.attempt.profile });
  return served;
}

/**
 * Stage: dispatch a routed call through its policy, to its Served outcome. A routed stream
 * served this way is answered whole, then replayed as the vendor's events: its policy needed the
 * whole answer first, or the quality gate must pass it before any byte leaves (`held`).
 */
export async function serveRoutedCall(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan): Promise<Served> {
  const t0 = performance.now();
  const named = await serveRouted(ctx, s, signal, plan);
  s.discovery.charge(ctx.principal.workflowId, explorationSpend(ctx));
  const held = ctx.stream ? (holdsStream(ctx, plan) ? 'quality-gate' : 'policy') : undefined;
  return { kind: 'served', text: named.text, upstreamMs: performance.now() - t0, vendorStatus: named.status, usage: ctx.served?.usage ?? ctx.attempts.at(-1)!.usage, named, ...(held ? { held } : {}) };
}
