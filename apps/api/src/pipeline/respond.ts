// Stage: respond (non-stream). Reads the vendor's answer, meters it, and sends it
// back unchanged but for the `optimizer` block.
import type { Meter } from '../meter/meter.ts';
import type { ResponseSink } from './sink.ts';
import type { CallContext, Costs } from './context.ts';
import type { Dispatched, ReadAnswer } from './dispatch.ts';
import { transportError } from './dispatch.ts';
import type { Idempotency } from './idempotency.ts';
import { meterCall } from './meter-call.ts';
import { usd, type Usage } from '../wire/usage.ts';
import { countPromptTokens, countTokens } from './tokens.ts';
import { sentSecrets } from '../providers/redact.ts';
import { upstreamInvalid } from '../providers/vendor-shape.ts';
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
    // an unproven policy served this call to learn (learning by serving): which one
    ...(ctx.optimizer?.trial ? { 'x-optimizer-trial': ctx.optimizer.policy } : {}),
    ...(ctx.warnings?.length ? { [WARNING_HEADER]: warningHeaderValue(ctx.warnings) } : {}),
  };
}

function estimateUsage(ctx: CallContext, completionText: string): Usage {
  const messages = Array.isArray(ctx.body.messages) ? (ctx.body.messages as unknown[]) : [];
  return { promptTokens: countPromptTokens(messages), completionTokens: countTokens(completionText), cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, estimated: true };
}

export { estimateUsage };

function completionText(json: string): string {
  try {
    const j = JSON.parse(json) as { choices?: { message?: { content?: string | null } }[] };
    return (j.choices ?? []).map((c) => c.message?.content ?? '').join('');
  } catch {
    return '';
  }
}

/**
 * Reads a dispatched JSON answer whole and checks it is the vendor's shape: a transfer that
 * fails is the catalogue's transport error, an answer not in the shape a 502 `upstream_invalid`
 * (never a 200 with what the vendor sent). The dispatch policy calls this before it counts the
 * vendor as having answered, so both count on the vendor's circuit and may fail over.
 */
export async function readAnswer(d: Dispatched): Promise<ReadAnswer> {
  let text: string;
  try {
    text = await d.response.body.text();
  } catch (err) {
    d.attempt.outcome = 'error';
    d.attempt.latencyMs = performance.now() - d.startedAt;
    throw transportError(err, d.target.provider.name);
  }
  const upstreamMs = performance.now() - d.startedAt;
  try {
    return { parsed: d.adapter.parseResponse(text, d.target), upstreamMs };
  } catch (err) {
    d.attempt.outcome = 'error';
    d.attempt.latencyMs = upstreamMs;
    throw upstreamInvalid(d.target.provider.name, err, text, sentSecrets(d.target));
  }
}

export async function respondJson(ctx: CallContext, d: Dispatched, reply: ResponseSink, meter: Meter, idempotency: Idempotency): Promise<void> {
  const { parsed, upstreamMs } = d.answer ?? (await readAnswer(d));
  const text = parsed.text;
  const usage = parsed.usage ?? estimateUsage(ctx, completionText(text));
  d.attempt.usage = usage;
  d.attempt.latencyMs = upstreamMs;
  ctx.served = d.attempt;
  await sendAnswer(ctx, text, upstreamMs, d.response.statusCode, reply, meter, idempotency);
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

/**
 * Meters a whole answer and sends it: as JSON, or to a stream request as the vendor's events
 * (`held` says why the stream was answered whole: `quality-gate`, the gate checked it before any
 * byte left; `policy`, its policy needed the whole answer first).
 */
export async function sendAnswer(ctx: CallContext, text: string, upstreamMs: number, vendorStatus: number, reply: ResponseSink, meter: Meter, idempotency: Idempotency, held?: 'quality-gate' | 'policy'): Promise<void> {
  const usage = ctx.served?.usage ?? ctx.attempts.at(-1)!.usage;
  const overheadMs = Math.max(0, reply.elapsedTime - upstreamMs);
  const costs = meterCall(ctx, meter, { status: 200, errorCode: null, usage, latencyMs: reply.elapsedTime, overheadMs, vendorStatus, answer: text });
  const written = meter.written(); // the answer leaves only once its call is in the write-ahead file
  if (written) await written;
  if (ctx.afterAnswer) await ctx.afterAnswer(text, costs).catch(() => undefined); // a cache write never fails the call
  // the caches above kept the redacted answer; the client gets its own values back
  const answer = ctx.guard?.vault.size ? ctx.guard.vault.restoreJson(text) : text;
  let body: string;
  let headers: Record<string, string>;
  if (ctx.stream) {
    // a routed stream served whole (its policy needed the whole answer first): replayed as the vendor's events
    body = answerAsStream(ctx, answer, costs, usage, false);
    headers = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), ...ctx.cacheHeaders, 'cache-control': 'no-cache', ...(held ? { 'x-optimizer-held': held } : {}) };
  } else {
    const end = answer.lastIndexOf('}');
    body = `${answer.slice(0, end)},"optimizer":${JSON.stringify(optimizerBlock(costs, ctx.cacheHit !== null))}}`;
    headers = { ...responseHeaders(ctx, overheadMs, 'application/json'), ...ctx.cacheHeaders, ...(ctx.cacheHit ? { 'x-optimizer-cache': 'hit' } : {}) };
  }
  if (ctx.claim) await idempotency.complete(ctx.claim, 200, headers, body);
  await reply.code(200).headers(headers).send(body);
}
