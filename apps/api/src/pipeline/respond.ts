// Stage: respond. Turns a metered outcome into the Reply: a vendor's answer (or a cached one)
// back unchanged but for the `optimizer` block, as JSON or as the vendor's events; a stream's
// last piece; an idempotent replay. Nothing here meters or writes to a transport.
import type { Reply } from './reply.ts';
import type { CacheHit, Replayed, Served, Streamed } from './outcome.ts';
import type { CallContext, Costs } from './context.ts';
import type { Dispatched } from './dispatch.ts';
import { completionText, estimateUsage, readAnswer } from './read-answer.ts';
import type { ApiError } from '../errors.ts';
import { usd, type Usage } from '../wire/usage.ts';
import { WARNING_HEADER, warningHeaderValue } from '../settings/tier-warnings.ts';
import { completionAsChunks } from './cache.ts';

export function optimizerBlock(costs: Costs, cacheHit = false) {
  return {
    cache_hit: cacheHit,
    baseline_cost: usd(costs.baseline),
    served_cost: usd(costs.served),
    actual_cost: usd(costs.actual),
    exploration_cost: usd(costs.exploration),
    saving: usd(costs.saving),
    ...(costs.unpriced ? { unpriced: true as const } : {}),
  };
}

export function responseHeaders(ctx: CallContext, overheadMs: number, contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'x-optimizer-call-id': ctx.id,
    'x-optimizer-model': ctx.route?.model ?? '',
    'x-optimizer-overhead-ms': overheadMs.toFixed(3),
    // the step the call was counted as: an outcome may name it by this fingerprint (POST /v1/outcomes step_id)
    ...(ctx.optimizer ? { 'x-optimizer-step': ctx.optimizer.fingerprint } : {}),
    // the policy the step served the call with (a gate, a mix's side, a trial), which an outcome is counted for
    ...(ctx.optimizer ? { 'x-optimizer-policy': ctx.optimizer.policy } : {}),
    // an unproven policy served this call to learn (learning by serving): which one
    ...(ctx.optimizer?.trial ? { 'x-optimizer-trial': ctx.optimizer.policy } : {}),
    ...(ctx.warnings?.length ? { [WARNING_HEADER]: warningHeaderValue(ctx.warnings) } : {}),
  };
}

/** Reads a dispatched JSON answer (the dispatch policy may have read it already): the Served outcome. */
export async function readServed(ctx: CallContext, d: Dispatched): Promise<Served> {
  const { parsed, upstreamMs } = d.answer ?? (await readAnswer(d));
  const text = parsed.text;
  const usage = parsed.usage ?? estimateUsage(ctx, completionText(text));
  d.attempt.usage = usage;
  d.attempt.latencyMs = upstreamMs;
  ctx.served = d.attempt;
  return { kind: 'served', text, upstreamMs, vendorStatus: d.response.statusCode, usage };
}

/**
 * A whole answer as the server-sent events a vendor would have streamed for it, the `optimizer`
 * block (and usage, when asked for) on the last chunk before [DONE]: a cache hit replayed, or a
 * routed stream whose policy needed the whole answer first (a gate, a verify).
 */
export function answerAsStream(ctx: CallContext, answer: string, costs: Costs, usage: { promptTokens: number; completionTokens: number }, cacheHit: boolean): string {
  const chunks = completionAsChunks(answer);
  const meta = JSON.parse(chunks[0]!) as Record<string, unknown>;
  const final: Record<string, unknown> = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], optimizer: optimizerBlock(costs, cacheHit) };
  if (ctx.clientWantsUsage) final.usage = { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
  return [...chunks, JSON.stringify(final)].map((c) => `data: ${c}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** A whole answer's body and headers: as JSON with its `optimizer` block, or to a stream request as the vendor's events. */
function wholeAnswer(ctx: CallContext, text: string, costs: Costs, usage: Usage, overheadMs: number, held?: 'quality-gate' | 'policy'): Reply {
  // the caches kept the redacted answer; the client gets its own values back
  const answer = ctx.guard?.vault.size ? ctx.guard.vault.restoreJson(text) : text;
  if (ctx.stream) {
    // a routed stream served whole (its policy needed the whole answer first): replayed as the vendor's events
    const headers = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), ...ctx.cacheHeaders, 'cache-control': 'no-cache', ...(held ? { 'x-optimizer-held': held } : {}) };
    return { status: 200, headers, body: answerAsStream(ctx, answer, costs, usage, false) };
  }
  const end = answer.lastIndexOf('}');
  const body = `${answer.slice(0, end)},"optimizer":${JSON.stringify(optimizerBlock(costs, ctx.cacheHit !== null))}}`;
  return { status: 200, headers: { ...responseHeaders(ctx, overheadMs, 'application/json'), ...ctx.cacheHeaders, ...(ctx.cacheHit ? { 'x-optimizer-cache': 'hit' } : {}) }, body };
}

/** A cached answer: replayed as the vendor's events to a stream request, else as a whole answer. */
function cachedAnswer(ctx: CallContext, hit: CacheHit, costs: Costs, overheadMs: number): Reply {
  const { answer } = hit;
  if (!ctx.stream) return wholeAnswer(ctx, answer.text, costs, ctx.served!.usage, overheadMs);
  const headers: Record<string, string> = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), ...ctx.cacheHeaders, 'cache-control': 'no-cache', 'x-optimizer-cache': 'hit' };
  const body = answerAsStream(ctx, ctx.guard?.vault.size ? ctx.guard.vault.restoreJson(answer.text) : answer.text, costs, answer, true);
  return { status: 200, headers, body };
}

/**
 * A relayed stream's last piece: what the guard's restorer held back, then an error event (the
 * stream failed, or its call could not be recorded: `unrecorded`) or the final chunk with the
 * `optimizer` block and [DONE]. Its status and headers went with the stream's head.
 */
function streamTail(ctx: CallContext, s: Streamed, costs: Costs, unrecorded: ApiError | null): Reply {
  const answered = s.status === 200 && !unrecorded;
  const failure = s.failure ?? (s.status === 200 ? unrecorded : null); // a stream that already failed keeps its own error event
  let tail = s.held ? `data: ${s.held}\n\n` : '';
  if (failure) tail += `data: ${JSON.stringify(failure.toBody())}\n\n`;
  if (answered) {
    const block = optimizerBlock(costs);
    const finalChunk =
      s.usageChunk && ctx.clientWantsUsage
        ? { ...(JSON.parse(s.usageChunk) as Record<string, unknown>), optimizer: block }
        : { id: s.meta?.id, object: 'chat.completion.chunk', created: s.meta?.created, model: s.meta?.model, choices: [], optimizer: block };
    tail += `data: ${JSON.stringify(finalChunk)}\n\ndata: [DONE]\n\n`;
  }
  return { status: s.status, headers: {}, body: tail };
}

/** An Idempotency-Key's earlier answer, as it was sent. */
function replayed(r: Replayed): Reply {
  const headers = JSON.parse(r.record.headers) as Record<string, string>;
  return { status: r.record.status, headers: { ...headers, 'idempotent-replayed': 'true' }, body: r.record.body };
}

/**
 * The Reply for an outcome the runner metered (`costs`; `overheadMs` as metered). A failure is
 * no Reply: the runner throws it for the transport's error handler. `unrecorded`: the
 * write-ahead file refused a stream's line, so its end is an error event, not an answer.
 */
export function respond(ctx: CallContext, outcome: Served | CacheHit | Streamed | Replayed, costs: Costs, overheadMs: number, unrecorded: ApiError | null = null): Reply {
  switch (outcome.kind) {
    case 'served':
      return wholeAnswer(ctx, outcome.text, costs, outcome.usage, overheadMs, outcome.held);
    case 'cache-hit':
      return cachedAnswer(ctx, outcome, costs, overheadMs);
    case 'streamed':
      return streamTail(ctx, outcome, costs, unrecorded);
    case 'replayed':
      return replayed(outcome);
  }
}
