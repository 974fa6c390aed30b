// Stage: respond (stream). Relays the vendor's SSE chunk by chunk as it arrives,
// keeps the usage chunk for metering (passing it on only if the client asked), and
// ends with the `optimizer` block on the final chunk before [DONE]. A client that
// goes away cancels the upstream call; what was delivered is metered.
import { ApiError } from '../errors.ts';
import type { Meter } from '../meter/meter.ts';
import type { ResponseSink } from './sink.ts';
import type { CallContext } from './context.ts';
import { completionFromChunks } from './assemble.ts';
import { transportError, type Dispatched } from './dispatch.ts';
import type { Idempotency } from './idempotency.ts';
import { meterCall } from './meter-call.ts';
import type { Usage } from '../wire/usage.ts';
import type { StreamEvent } from '../providers/types.ts';
import { streamError } from '../providers/vendor-error.ts';
import { sentSecrets } from '../providers/redact.ts';
import { logInvalid, upstreamInvalid } from '../providers/vendor-shape.ts';
import { estimateUsage, optimizerBlock, responseHeaders } from './respond.ts';
import { ChunkRestorer } from '../guard/chunk-restorer.ts';

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

/**
 * `log` hears of a stream event that is not the vendor's shape (its raw text, redacted): the
 * stream ends there with an `upstream_invalid` error event, and nothing after it is relayed.
 */
export async function relayStream(ctx: CallContext, d: Dispatched, reply: ResponseSink, abort: AbortController, meter: Meter, idempotency: Idempotency, log?: { warn(obj: object, msg: string): void }): Promise<void> {
  const headersAt = performance.now();
  const overheadMs = Math.max(0, reply.elapsedTime - (headersAt - d.startedAt));
  // the cache stage's verdict (a miss, here) goes with the stream's headers
  const headers: Record<string, string> = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), ...ctx.cacheHeaders, 'cache-control': 'no-cache', connection: 'keep-alive' };
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers);
  res.flushHeaders();

  const recorded: string[] | null = ctx.claim ? [] : null;
  // Backpressure: when the client's socket is full, the vendor's is not read until it drains.
  // node:http's response emits 'drain', the socket path's socket does: whichever comes first.
  let draining = false;
  const socket = res.socket;
  const drained = () => {
    if (!draining) return;
    draining = false;
    res.removeListener('drain', drained);
    socket?.removeListener('drain', drained);
    d.response.body.resume();
  };
  const write = (s: string) => {
    if (!res.writableEnded && !res.destroyed && !res.write(s) && !draining) {
      draining = true;
      d.response.body.pause();
      res.once('drain', drained);
      socket?.once('drain', drained);
    }
    recorded?.push(s);
  };
  let clientGone = false;
  res.on('close', () => {
    if (!res.writableFinished) {
      clientGone = true;
      abort.abort();
    }
  });

  const decoder = d.adapter.streamDecoder(d.target);
  // the guard's placeholders go back to the client's values, chunk by chunk
  const restorer = ctx.guard?.vault.size ? new ChunkRestorer(ctx.guard.vault) : null;
  const delivered: string[] = [];
  let meta = null as ChunkMeta | null;
  let usage = null as Usage | null;
  let usageChunk = null as string | null;
  let sawDone = false as boolean;
  let vendorError = null as string | null;
  let failure: ApiError | null = null;

  // What one upstream read brought goes out in one write (corked), not one write per event.
  const handle = (events: StreamEvent[]) => {
    const corked = events.length > 1 && !res.writableEnded && !res.destroyed;
    if (corked) res.cork();
    try {
      relay(events);
    } finally {
      if (corked) res.uncork();
    }
  };
  const relay = (events: StreamEvent[]) => {
    for (const ev of events) {
      switch (ev.kind) {
        case 'done':
          sawDone = true;
          break;
        case 'usage':
          usage = ev.usage;
          if (ev.data) usageChunk = ev.data;
          break;
        case 'error':
          vendorError = streamError(d.target.provider.name, ev.data, sentSecrets(d.target)); // our words, never the vendor's text
          write(`data: ${vendorError}\n\n`);
          break;
        case 'chunk':
          if (meta === null) meta = JSON.parse(ev.data) as ChunkMeta;
          delivered.push(ev.data); // as the vendor sent it: the caches keep the redacted answer
          write(`data: ${restorer ? restorer.chunk(ev.data) : ev.data}\n\n`);
          break;
      }
    }
  };
  // Read as it arrives, with callbacks: no promise per chunk on the relay path.
  await new Promise<void>((resolve) => {
    const body = d.response.body;
    let settled = false;
    const finish = (err?: unknown, unreadable = false) => {
      if (settled) return;
      settled = true;
      if (err !== undefined && !clientGone) {
        // what the vendor sent could not be read as its stream: never relayed, never a 200's end
        failure = unreadable ? upstreamInvalid(d.target.provider.name, err, '', sentSecrets(d.target)) : transportError(err, d.target.provider.name);
        if (unreadable && log) logInvalid(log, failure, ctx.id);
      }
      resolve();
    };
    body.consume({
      data: (buf) => {
        if (settled) return;
        try {
          handle(decoder.push(buf));
        } catch (err) {
          finish(err, true);
          body.destroy();
        }
      },
      end: () => {
        try {
          handle(decoder.end());
        } catch (err) {
          return finish(err, true);
        }
        finish();
      },
      error: (err) => finish(err),
    });
  });
  res.removeListener('drain', drained);
  socket?.removeListener('drain', drained);
  if (!clientGone && !vendorError && !failure && !sawDone) {
    failure = new ApiError('upstream_error', `${d.target.provider.name} ended the stream before it finished.`);
  }

  const upstreamMs = performance.now() - d.startedAt;
  const finalUsage = usage ?? estimateUsage(ctx, deliveredText(delivered));
  d.attempt.usage = finalUsage;
  d.attempt.latencyMs = upstreamMs;
  const ok = !clientGone && !vendorError && !failure;
  d.attempt.outcome = clientGone ? 'cancelled' : ok ? 'ok' : 'error';
  const status = clientGone ? 499 : ok ? 200 : failure ? failure.status : 502;
  const errorCode = clientGone ? 'client_closed_request' : vendorError ? 'upstream_stream_error' : (failure?.code ?? null);
  // the whole answer as one chat.completion: for the recording, and for the caches below
  const assembled = ok && (ctx.afterAnswer || ctx.capture?.content === 'full') ? completionFromChunks(delivered, { prompt_tokens: finalUsage.promptTokens, completion_tokens: finalUsage.completionTokens }) : null;
  const costs = meterCall(ctx, meter, { status, errorCode, usage: finalUsage, latencyMs: reply.elapsedTime, overheadMs, vendorStatus: d.response.statusCode, answer: assembled ?? undefined });
  // the stream ends only once its call is in the write-ahead file. One the file cannot take (a full
  // disk) is not recorded, so it is not a finished answer: the client gets an error event where the
  // final chunk and [DONE] would be, and the stream still ends (its headers are sent: no 500 can)
  const written = meter.written();
  const unrecorded = written ? await written.then(() => null, (err: unknown) => new ApiError('internal', undefined, { cause: err })) : null;
  const answered = ok && !unrecorded;
  if (ok && unrecorded) failure = unrecorded; // a stream that already failed keeps its own error event

  // The tail (an error event, or the final chunk and [DONE]) goes out with the end, in one write.
  let tail = '';
  const held = restorer?.end();
  if (held) tail += `data: ${held}\n\n`;
  if (failure) tail += `data: ${JSON.stringify(failure.toBody())}\n\n`;
  if (answered) {
    const block = optimizerBlock(costs);
    const finalChunk =
      usageChunk && ctx.clientWantsUsage
        ? { ...(JSON.parse(usageChunk) as Record<string, unknown>), optimizer: block }
        : { id: meta?.id, object: 'chat.completion.chunk', created: meta?.created, model: meta?.model, choices: [], optimizer: block };
    tail += `data: ${JSON.stringify(finalChunk)}\n\ndata: [DONE]\n\n`;
  }
  // a whole streamed answer is stored like a non-stream one, before the stream ends: a
  // client that asks again once it has the answer finds it
  if (answered && ctx.afterAnswer) {
    const text = assembled;
    ctx.served = d.attempt;
    if (text) await ctx.afterAnswer(text, costs).catch(() => undefined); // a cache write never fails the call
  }
  if (tail) recorded?.push(tail);
  if (!res.writableEnded && !res.destroyed) res.end(tail);
  if (ctx.claim) {
    if (answered) await idempotency.complete(ctx.claim, 200, headers, recorded!.join(''));
    else await idempotency.release(ctx.claim);
  }
}
