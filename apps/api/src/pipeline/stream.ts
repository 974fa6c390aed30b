// Stage: respond (stream). Relays the vendor's SSE chunk by chunk as it arrives,
// keeps the usage chunk for metering (passing it on only if the client asked), and
// ends with the `optimizer` block on the final chunk before [DONE]. A client that
// goes away cancels the upstream call; what was delivered is metered.
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Meter } from '../meter/meter.ts';
import type { CallContext } from './context.ts';
import { transportError, type Dispatched } from './dispatch.ts';
import type { Idempotency } from './idempotency.ts';
import { meterCall } from './meter-call.ts';
import { usageFromOpenAI, type Usage } from './pricing.ts';
import { estimateUsage, optimizerBlock, responseHeaders } from './respond.ts';
import { SseSplitter, eventData } from './sse.ts';

interface ChunkMeta {
  id?: string;
  created?: number;
  model?: string;
  system_fingerprint?: string | null;
}

/** The text a stream delivered so far (content and tool-call arguments), for estimating usage. */
function deliveredText(data: string[]): string {
  let out = '';
  for (const d of data) {
    try {
      const j = JSON.parse(d) as { choices?: { delta?: { content?: string | null; tool_calls?: { function?: { arguments?: string } }[] } }[] };
      for (const c of j.choices ?? []) {
        out += c.delta?.content ?? '';
        for (const t of c.delta?.tool_calls ?? []) out += t.function?.arguments ?? '';
      }
    } catch {
      /* a malformed chunk delivered nothing countable */
    }
  }
  return out;
}

export async function relayStream(ctx: CallContext, d: Dispatched, reply: FastifyReply, abort: AbortController, meter: Meter, idempotency: Idempotency): Promise<void> {
  const headersAt = performance.now();
  const overheadMs = Math.max(0, reply.elapsedTime - (headersAt - d.startedAt));
  const headers = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), 'cache-control': 'no-cache', connection: 'keep-alive' };
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers);
  res.flushHeaders();

  const recorded: string[] | null = ctx.claim ? [] : null;
  const write = (s: string) => {
    if (!res.writableEnded && !res.destroyed) res.write(s);
    recorded?.push(s);
  };
  let clientGone = false;
  res.on('close', () => {
    if (!res.writableFinished) {
      clientGone = true;
      abort.abort();
    }
  });

  const splitter = new SseSplitter();
  const delivered: string[] = [];
  let meta: ChunkMeta | null = null;
  let usage: Usage | null = null;
  let usageChunk: Record<string, unknown> | null = null;
  let sawDone = false;
  let vendorError: string | null = null;
  let failure: ApiError | null = null;

  try {
    for await (const buf of d.response.body) {
      for (const ev of splitter.push(buf as Buffer)) {
        const data = eventData(ev);
        if (data === null) continue;
        if (data === '[DONE]') {
          sawDone = true;
          continue;
        }
        if (meta === null) {
          const j = JSON.parse(data) as ChunkMeta & { error?: unknown };
          meta = { id: j.id, created: j.created, model: j.model, system_fingerprint: j.system_fingerprint };
        }
        if (data.includes('"usage"')) {
          const j = JSON.parse(data) as { usage?: unknown; choices?: unknown[] };
          const u = usageFromOpenAI(j.usage);
          if (u) {
            usage = u;
            if (!j.choices || j.choices.length === 0) {
              usageChunk = j as Record<string, unknown>;
              continue;
            }
          }
        }
        if (data.startsWith('{"error"') || /^\{\s*"error"\s*:/.test(data)) {
          vendorError = data;
          write(`data: ${data}\n\n`);
          continue;
        }
        delivered.push(data);
        write(`data: ${data}\n\n`);
      }
    }
  } catch (err) {
    if (!clientGone) failure = transportError(err, d.provider.name);
  }
  if (!clientGone && !vendorError && !failure && !sawDone) {
    failure = new ApiError('upstream_error', `${d.provider.name} ended the stream before it finished.`);
  }

  const upstreamMs = performance.now() - d.startedAt;
  const finalUsage = usage ?? estimateUsage(ctx, deliveredText(delivered));
  d.attempt.usage = finalUsage;
  d.attempt.latencyMs = upstreamMs;
  const ok = !clientGone && !vendorError && !failure;
  d.attempt.outcome = clientGone ? 'cancelled' : ok ? 'ok' : 'error';
  const status = clientGone ? 499 : ok ? 200 : failure ? failure.status : 502;
  const errorCode = clientGone ? 'client_closed_request' : vendorError ? 'upstream_stream_error' : (failure?.code ?? null);
  const costs = meterCall(ctx, meter, { status, errorCode, usage: finalUsage, latencyMs: reply.elapsedTime, overheadMs, vendorStatus: d.response.statusCode });

  if (failure) write(`data: ${JSON.stringify(failure.toBody())}\n\n`);
  if (ok) {
    const block = optimizerBlock(costs);
    const finalChunk =
      usageChunk && ctx.clientWantsUsage
        ? { ...usageChunk, optimizer: block }
        : { id: meta?.id, object: 'chat.completion.chunk', created: meta?.created, model: meta?.model, choices: [], optimizer: block };
    write(`data: ${JSON.stringify(finalChunk)}\n\n`);
    write('data: [DONE]\n\n');
  }
  if (!res.writableEnded) res.end();
  if (ctx.claim) {
    if (ok) await idempotency.complete(ctx.claim, 200, headers, recorded!.join(''));
    else await idempotency.release(ctx.claim);
  }
}
