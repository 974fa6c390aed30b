// The judge on semantic hits: while a step is still exploring, a sampled share of its
// semantic hits is graded by the judge (optimizer/judge.ts) on the new question before
// it is served. A failed check is served as a miss (the call goes upstream), and a step
// whose hits fail more than SemanticCache's MAX_FAILED_SHARE loses semantic caching.
// The judge's spend is the call's exploration cost.
import { randomInt } from 'node:crypto';
import { SETTLE_CHECKS, type SemanticHit, type SemanticQuery } from '../cache/semantic-cache.ts';
import { judgeBody, parseGrade } from '../optimizer/judge.ts';
import type { ChatBody } from '../providers/types.ts';
import type { PipelineDeps } from './deps.ts';
import { answerOf, completeOn } from './complete.ts';
import type { CallContext } from './context.ts';

/** A grade below this fails the hit (as for the verify policy). */
const PASS = 0.5;
const JUDGE_TIMEOUT_MS = 60_000;

/** Whether this hit gets a judge check: its step is still exploring, and the draw says so. */
export function sampleCheck(ctx: CallContext, s: PipelineDeps, q: SemanticQuery): boolean {
  const rate = s.config.SEMANTIC_CHECK_RATE;
  if (rate <= 0) return false;
  const c = s.semanticCache.stepCheck(q.accountId, q.step);
  const exploring = (ctx.optimizer !== null && !ctx.optimizer.settled) || c.checked - c.failed < SETTLE_CHECKS;
  if (!exploring) return false;
  return rate >= 1 || randomInt(0, 1_000_000) < rate * 1_000_000;
}

/** The judge model: the tenant's, else the call's baseline (or its pinned model). */
function judgeModel(ctx: CallContext, s: PipelineDeps): string {
  const named = s.routingSettings.get(ctx.principal.accountId).judge_model;
  if (named && s.catalog.get(named)) return named;
  return ctx.route?.baselineModel ?? ctx.route?.model ?? ctx.requestedModel;
}

/**
 * Grades a semantic hit's answer against the new question. True when it may be served:
 * the judge passed it, or gave no usable grade (no verdict is not a failure).
 */
export async function judgeHit(ctx: CallContext, s: PipelineDeps, q: SemanticQuery, hit: SemanticHit): Promise<boolean> {
  const model = judgeModel(ctx, s);
  const profile = s.catalog.get(model);
  const messages = (ctx.body.messages as unknown[]) ?? [];
  let score: number | null;
  try {
    const c = await completeOn(ctx, s, AbortSignal.timeout(JUDGE_TIMEOUT_MS), { model, provider: profile?.provider ?? ctx.route?.provider ?? 'openai', profile }, 'judge', judgeBody(model, messages, answerOf(hit.answer.text).answer) as ChatBody);
    score = parseGrade(c.answer);
  } catch {
    score = null;
  }
  if (score === null) {
    ctx.route?.reasons.push('semantic cache: the judge gave no grade on this hit; served it');
    return true;
  }
  const passed = score >= PASS;
  const check = s.semanticCache.recordCheck(q.accountId, q.step, passed, `last: ${JSON.stringify(hit.question)} for ${JSON.stringify(q.question)} scored ${score}`);
  ctx.route?.reasons.push(
    passed
      ? `semantic cache: the judge passed this hit (${score})`
      : `semantic cache: the judge failed this hit (${score}); answered upstream instead${check.disabled ? ', and the step loses semantic caching' : ''}`,
  );
  return passed;
}
