// Stage: cache — look up before dispatch, store after a good answer.
import { isDependencyDown } from '../failures/dependency-down.ts';
import type { PipelineDeps } from './deps.ts';
import type { AnswerCache, CachedAnswer } from '../cache/answer-cache.ts';
import { cacheable, exactKey, planKey } from './cache.ts';
import type { CallContext, Costs } from './context.ts';
import type { CacheHit } from './outcome.ts';
import { noUsage, type Usage } from '../wire/usage.ts';
import { semanticQuery } from './semantic.ts';
import { judgeHit, sampleCheck } from './semantic-check.ts';
import { completeVerification, verifyOrServe, type PendingVerification } from './semantic-verify.ts';
import type { SemanticQuery } from '../cache/semantic-cache.ts';
import { cachePolicy } from '../optimizer/outcomes.ts';

/** The exact cache fails open: with its store unreachable a lookup is a miss and a store is skipped (quota, not the cache, fails closed). */
const openOnOutage =
  <T>(fallback: T) =>
  (err: unknown): T => {
    if (isDependencyDown(err)) return fallback;
    throw err;
  };

const DEFAULT_TTL_S = 3600;
const PLAN_TTL_MS = 24 * 3600_000;

function usageOf(a: CachedAnswer): Usage {
  return { ...noUsage, promptTokens: a.promptTokens, completionTokens: a.completionTokens };
}

type Source = 'plan' | 'exact' | 'semantic';

const REASONS: Record<Source, string> = {
  plan: 'served from the plan cache: a run that started this way completed without a hard failure',
  exact: 'served from the exact cache: the same request was answered before',
  semantic: 'served from the semantic cache',
};

/** The semantic part of the stage, when the tenant turned it on and the call is eligible. */
function semanticFor(ctx: CallContext, s: PipelineDeps, settings: { semantic?: boolean; semantic_threshold?: number }): SemanticQuery | null {
  if (settings.semantic !== true) return null; // off: nothing is computed, no embedder exists
  const { query, why } = semanticQuery(ctx, settings.semantic_threshold);
  if (!query) {
    ctx.route?.reasons.push(`semantic cache not used: ${why}`);
    return null;
  }
  const check = s.semanticCache.stepCheck(query.accountId, query.step);
  if (check.disabled) {
    ctx.route?.reasons.push(`semantic cache off for this step: ${check.reason ?? 'its hits failed the judge'}`);
    return null;
  }
  return query;
}

/**
 * Serves the call from the plan cache (a run's opening call), the exact cache or the
 * semantic cache when it can (the CacheHit outcome), and otherwise arranges for a good
 * answer to be stored (null: the call goes on to dispatch).
 */
export async function serveFromCache(ctx: CallContext, s: PipelineDeps, cacheControl: string | undefined): Promise<CacheHit | null> {
  const accountId = ctx.principal.accountId;
  const settings = s.routingSettings.get(accountId).cache ?? {};
  const exactOn = settings.exact === true;
  const skip = /\bno-(cache|store)\b/i.test(cacheControl ?? '');
  const runId = ctx.annotation?.run?.id;
  const isStart = ctx.annotation?.run?.is_start === true && runId !== undefined;
  const semantic = skip ? null : semanticFor(ctx, s, settings);
  if (!exactOn && !isStart && !semantic) return null;
  const cache: AnswerCache = s.answerCache;
  const exact = exactKey(ctx);
  const plan = planKey(ctx);
  let vector: Promise<Float32Array | null> | null = null;
  /** A would-be hit answered upstream to verify it (the tenant set an error bound). */
  let verifying: PendingVerification | null = null;

  if (!skip) {
    let hit: CachedAnswer | null = null;
    let source: Source = 'exact';
    if (isStart) {
      hit = await cache.get(plan);
      if (hit) {
        source = 'plan';
        await cache.notePlanServed(accountId, runId!, plan);
      }
    }
    if (!hit && exactOn) hit = await cache.get(exact).catch(openOnOutage(null));
    if (!hit && semantic) {
      const found = await s.semanticCache.lookup(semantic).catch((err: unknown) => ({ hit: null, why: `lookup failed: ${String(err)}`, vector: Promise.resolve(null) }));
      vector = found.vector;
      if (found.why) ctx.route?.reasons.push(`semantic cache missed: ${found.why}`);
      if (found.hit) verifying = verifyOrServe(ctx, s, semantic, found.hit, settings.semantic_error_bound);
      if (found.hit && !verifying && (!sampleCheck(ctx, s, semantic) || (await judgeHit(ctx, s, semantic, found.hit)))) {
        hit = found.hit.answer;
        source = 'semantic';
        ctx.cacheHeaders['x-optimizer-cache-similarity'] = found.hit.similarity.toFixed(4);
        ctx.route?.reasons.push(`${REASONS.semantic}: ${JSON.stringify(found.hit.question)} (similarity ${found.hit.similarity.toFixed(3)})`);
      }
    }
    if (hit) {
      ctx.cacheHit = { source: source === 'plan' ? 'trace' : 'cache', baselineMicros: hit.baselineMicros };
      if (ctx.optimizer) {
        // the outcome of this call belongs to the cache, not to the policy routing chose
        ctx.optimizer = { ...ctx.optimizer, policy: cachePolicy(source) };
        if (runId) s.outcomes.servedFromCache(accountId, runId, ctx.optimizer.step, ctx.id, source);
      }
      const reasons = source === 'semantic' ? (ctx.route?.reasons ?? []) : [REASONS[source]];
      ctx.route = { ...ctx.route!, model: hit.model, provider: hit.provider, profile: s.catalog.get(hit.model), reasons };
      ctx.cacheHeaders['x-optimizer-cache-kind'] = source;
      if (!ctx.stream) ctx.served = { provider: hit.provider, model: hit.model, profile: undefined, startedAt: new Date(), latencyMs: 0, status: null, outcome: 'ok', usage: usageOf(hit), role: 'serve' };
      return { kind: 'cache-hit', answer: hit, source };
    }
    ctx.cacheHeaders['x-optimizer-cache'] = 'miss';
  }

  ctx.afterAnswer = async (text: string, costs: Costs) => {
    if (verifying && semantic) {
      const agreed = completeVerification(s, semantic, verifying, text);
      ctx.route?.reasons.push(`semantic cache: the upstream answer ${agreed ? 'agreed' : 'disagreed'} with the cached one`);
    }
    if (!cacheable(ctx, text)) return;
    const served = ctx.served;
    const answer: CachedAnswer = {
      text,
      model: served?.model ?? ctx.route?.model ?? ctx.requestedModel,
      provider: served?.provider ?? ctx.route?.provider ?? '',
      baselineMicros: costs.baseline,
      promptTokens: served?.usage.promptTokens ?? 0,
      completionTokens: served?.usage.completionTokens ?? 0,
    };
    const ttlMs = (settings.ttl_seconds ?? DEFAULT_TTL_S) * 1000;
    if (exactOn && !skip) await cache.put(exact, answer, ttlMs).catch(openOnOutage(undefined));
    // in the background: never delays the answer; not for a step that just lost semantic caching
    if (semantic && vector && !s.semanticCache.stepCheck(accountId, semantic.step).disabled) s.semanticCache.store(semantic, vector, answer, ttlMs);
    if (isStart) await cache.holdPlan(accountId, runId!, plan, answer);
  };
  return null;
}

export { PLAN_TTL_MS };
