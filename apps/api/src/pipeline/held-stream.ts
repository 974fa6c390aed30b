// A routed stream held behind the quality gate: when a routed call that streams asks for
// structured output or tools and its policy serves a model other than the baseline, the
// answer is read whole and checked first (serve-routed.ts), and only an answer that passed,
// or the baseline's after an escalation, is sent, as the chunks a vendor would have streamed.
// Nothing reaches the client before the gate's verdict, so an escalation costs no byte.
import type { Meter } from '../meter/meter.ts';
import type { ResponseSink } from './sink.ts';
import type { CallContext } from './context.ts';
import type { Idempotency } from './idempotency.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { completionAsChunks } from './cache.ts';
import { meterCall } from './meter-call.ts';
import { optimizerBlock, responseHeaders } from './respond.ts';
import { asksForStructure } from './quality-gate.ts';
import { primaryModel } from '../optimizer/policies.ts';

/** Whether this routed stream is held: it asks for something the gate checks, and a model other than the baseline may answer it. */
export function holdsStream(ctx: CallContext, plan: RoutedPlan): boolean {
  return ctx.stream && asksForStructure(ctx.body) && (plan.decision.policy.kind !== 'model' || primaryModel(plan.decision.policy) !== plan.baseline);
}

/** Meters a held answer and sends it as a stream, with the optimizer block on the final chunk. */
export async function sendHeldStream(ctx: CallContext, text: string, upstreamMs: number, vendorStatus: number, reply: ResponseSink, meter: Meter, idempotency: Idempotency): Promise<void> {
  const usage = ctx.served?.usage ?? ctx.attempts.at(-1)!.usage;
  const overheadMs = Math.max(0, reply.elapsedTime - upstreamMs);
  const costs = meterCall(ctx, meter, { status: 200, errorCode: null, usage, latencyMs: reply.elapsedTime, overheadMs, vendorStatus, answer: text });
  const written = meter.written(); // the answer leaves only once its call is in the write-ahead file
  if (written) await written;
  if (ctx.afterAnswer) await ctx.afterAnswer(text, costs).catch(() => undefined); // a cache write never fails the call
  const answer = ctx.guard?.vault.size ? ctx.guard.vault.restoreJson(text) : text;
  const chunks = completionAsChunks(answer);
  const meta = JSON.parse(chunks[0]!) as Record<string, unknown>;
  const final: Record<string, unknown> = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], optimizer: optimizerBlock(costs) };
  if (ctx.clientWantsUsage) final.usage = { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
  const body = [...chunks, JSON.stringify(final)].map((c) => `data: ${c}\n\n`).join('') + 'data: [DONE]\n\n';
  const headers: Record<string, string> = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), ...ctx.cacheHeaders, 'cache-control': 'no-cache', 'x-optimizer-held': 'quality-gate' };
  if (ctx.claim) await idempotency.complete(ctx.claim, 200, headers, body);
  await reply.code(200).headers(headers).send(body);
}
