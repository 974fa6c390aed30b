// Stage: cache — look up before dispatch, store after a good answer.
import type { FastifyReply } from 'fastify';
import type { Services } from '../services.ts';
import { AnswerCache, cacheable, completionAsChunks, exactKey, planKey, type CachedAnswer } from './cache.ts';
import type { CallContext, Costs } from './context.ts';
import { meterCall } from './meter-call.ts';
import { noUsage, type Usage } from './pricing.ts';
import { optimizerBlock, responseHeaders, sendAnswer } from './respond.ts';

const DEFAULT_TTL_S = 3600;
const PLAN_TTL_MS = 24 * 3600_000;

function usageOf(a: CachedAnswer): Usage {
  return { ...noUsage, promptTokens: a.promptTokens, completionTokens: a.completionTokens };
}

async function replayStream(ctx: CallContext, s: Services, answer: CachedAnswer, reply: FastifyReply): Promise<void> {
  const costs = meterCall(ctx, s.meter, { status: 200, errorCode: null, usage: usageOf(answer), latencyMs: reply.elapsedTime, overheadMs: reply.elapsedTime, vendorStatus: null });
  const headers = { ...responseHeaders(ctx, reply.elapsedTime, 'text/event-stream; charset=utf-8'), 'cache-control': 'no-cache', 'x-optimizer-cache': 'hit' };
  const chunks = completionAsChunks(answer.text);
  const meta = JSON.parse(chunks[0]!) as Record<string, unknown>;
  const final: Record<string, unknown> = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], optimizer: optimizerBlock(costs, true) };
  if (ctx.clientWantsUsage) final.usage = { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens };
  const body = [...chunks, JSON.stringify(final)].map((c) => `data: ${c}\n\n`).join('') + 'data: [DONE]\n\n';
  if (ctx.claim) await s.idempotency.complete(ctx.claim, 200, headers, body);
  await reply.code(200).headers(headers).send(body);
}

/**
 * Serves the call from the plan cache (a run's opening call) or the exact cache when
 * it can, and otherwise arranges for a good answer to be stored. True when served.
 */
export async function serveFromCache(ctx: CallContext, s: Services, cacheControl: string | undefined, reply: FastifyReply): Promise<boolean> {
  const accountId = ctx.principal.accountId;
  const settings = s.routingSettings.get(accountId).cache ?? {};
  const exactOn = settings.exact === true;
  const skip = /\bno-(cache|store)\b/i.test(cacheControl ?? '');
  const runId = ctx.annotation?.run?.id;
  const isStart = ctx.annotation?.run?.is_start === true && runId !== undefined;
  if (!exactOn && !isStart) return false;
  const cache: AnswerCache = s.answerCache;
  const exact = exactKey(ctx);
  const plan = planKey(ctx);

  if (!skip) {
    let hit: CachedAnswer | null = null;
    let source: 'cache' | 'trace' = 'cache';
    if (isStart) {
      hit = await cache.get(plan);
      if (hit) {
        source = 'trace';
        await cache.notePlanServed(accountId, runId!, plan);
      }
    }
    if (!hit && exactOn) hit = await cache.get(exact);
    if (hit) {
      ctx.cacheHit = { source, baselineMicros: hit.baselineMicros };
      ctx.route = { ...ctx.route!, model: hit.model, provider: hit.provider, profile: s.catalog.get(hit.model) };
      ctx.route.reasons = [source === "trace" ? "served from the plan cache: a run that started this way completed without a hard failure" : "served from the exact cache: the same request was answered before"];
      if (ctx.stream) await replayStream(ctx, s, hit, reply);
      else {
        ctx.served = { provider: hit.provider, model: hit.model, profile: undefined, startedAt: new Date(), latencyMs: 0, status: null, outcome: 'ok', usage: usageOf(hit), role: 'serve' };
        await sendAnswer(ctx, hit.text, 0, 200, reply, s.meter, s.idempotency);
      }
      return true;
    }
  }

  ctx.afterAnswer = async (text: string, costs: Costs) => {
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
    if (exactOn && !skip) await cache.put(exact, answer, (settings.ttl_seconds ?? DEFAULT_TTL_S) * 1000);
    if (isStart) await cache.holdPlan(accountId, runId!, plan, answer);
  };
  return false;
}

export { PLAN_TTL_MS };
