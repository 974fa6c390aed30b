// Stage: respond (stream). Relays the vendor's SSE chunk by chunk as it arrives,
// keeps the usage chunk for metering (passing it on only if the client asked), and
// ends with the `optimizer` block on the final chunk before [DONE]. A client that
// goes away cancels the upstream call; what was delivered is metered. The dispatch policy
// opens the stream first (`openStream`): nothing is sent until the vendor's first event
// is read, so a first event not in the vendor's shape, or a vendor error before any
// content, is a real HTTP error that counts on the vendor's circuit and may fail over.
import { ApiError } from '../errors.ts';
import type { Meter } from '../meter/meter.ts';
import type { ResponseSink } from './sink.ts';
import type { CallContext } from './context.ts';
import { completionFromChunks } from './assemble.ts';
import { transportError, type Dispatched, type Opening } from './dispatch.ts';
import type { Idempotency } from './idempotency.ts';
import { meterCall } from './meter-call.ts';
import { answerOf } from './complete.ts';
import type { Named } from './routed-plan.ts';
import type { Usage } from '../wire/usage.ts';
import type { StreamEvent } from '../providers/types.ts';
import type { BodySink } from '../providers/outbound.ts';
import { streamError, tryJson, vendorIdentifier, vendorMessage } from '../providers/vendor-error.ts';
import type { ErrorCode } from '../errors.ts';
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

/** The catalogue's code for an error a vendor reported inside a stream, by the OpenAI error type it carries. */
const STREAM_ERROR_CODES: Record<string, ErrorCode> = {
  rate_limit_error: 'upstream_rate_limited',
  authentication_error: 'upstream_auth',
  permission_error: 'upstream_auth',
  invalid_request_error: 'upstream_bad_request',
  not_found_error: 'upstream_not_found',
  timeout_error: 'upstream_timeout',
};

/**
 * A vendor error reported as a stream's first event, before any content: the catalogue's error
 * for its type (a 5xx-like `upstream_error` unless the vendor says the key, the rate or the
 * request is at fault), in our words, with the vendor's type and code only when they are
 * identifiers that hold no secret the call sent.
 */
export function openingError(provider: string, data: string, secrets: readonly string[]): ApiError {
  const j = tryJson(data) as { error?: { type?: unknown; code?: unknown } } | null;
  const e = j && typeof j.error === 'object' && j.error !== null ? j.error : {};
  const type = vendorIdentifier(e.type);
  const code: ErrorCode = (typeof type === 'string' && STREAM_ERROR_CODES[type]) || 'upstream_error';
  const clean = (v: string | number | null) => (typeof v === 'string' && secrets.some((x) => x !== '' && v.includes(x)) ? null : v);
  return new ApiError(code, `${vendorMessage(provider, code)} (reported at the start of its stream)`, { extra: { vendor_type: clean(type), vendor_code: clean(vendorIdentifier(e.code)) } });
}

/**
 * Reads a dispatched stream up to its first event and leaves it on `d.opening` for the relay.
 * Rejects, with nothing sent to the client, when that event is not the vendor's shape (502
 * `upstream_invalid`), is a vendor error before any content (`openingError`), or when the body
 * ends before any event (`upstream_error`) or fails (the transport's error); the upstream
 * request is then given up. The dispatch policy counts these like a 5xx before the first byte.
 */
export function openStream(d: Dispatched): Promise<void> {
  const provider = d.target.provider.name;
  const body = d.response.body;
  const decoder = d.adapter.streamDecoder(d.target);
  return new Promise<void>((resolve, reject) => {
    // peeking: before the first event; held: after it, until the relay attaches; then forwarded
    let state = 'peeking' as 'peeking' | 'held' | 'failed' | 'attached';
    let sink: BodySink | null = null;
    const pending: Buffer[] = [];
    let ended = false;
    let failed: Error | null = null;
    const fail = (e: ApiError, destroy: boolean) => {
      state = 'failed';
      d.attempt.outcome = 'error';
      d.attempt.latencyMs = performance.now() - d.startedAt;
      if (destroy) body.destroy();
      reject(e);
    };
    const open = (events: StreamEvent[], atEnd: boolean) => {
      if (events.length === 0 && !atEnd) return; // nothing whole yet (a comment, a ping, half an event)
      const content = events.findIndex((ev) => ev.kind === 'chunk');
      const early = events.find((ev, i) => ev.kind === 'error' && (content < 0 || i < content));
      if (early?.kind === 'error') return fail(openingError(provider, early.data, sentSecrets(d.target)), !atEnd);
      if (events.length === 0) return fail(new ApiError('upstream_error', `${provider} ended the stream before sending any event.`), false);
      state = 'held';
      body.pause(); // the relay resumes it once it reads
      d.opening = {
        decoder: atEnd ? { push: (b) => decoder.push(b), end: () => [] } : decoder, // a decoder is ended once
        events,
        attach(s) {
          state = 'attached';
          sink = s;
          for (const buf of pending.splice(0)) s.data(buf);
          if (failed) s.error(failed);
          else if (ended) s.end();
        },
      };
      resolve();
    };
    body.consume({
      data: (buf) => {
        if (state === 'attached') return sink!.data(buf);
        if (state === 'held') return void pending.push(buf);
        if (state === 'failed') return;
        try {
          open(decoder.push(buf), false);
        } catch (err) {
          fail(upstreamInvalid(provider, err, '', sentSecrets(d.target)), true);
        }
      },
      end: () => {
        ended = true;
        if (state === 'attached') return sink!.end();
        if (state !== 'peeking') return;
        try {
          open(decoder.end(), true);
        } catch (err) {
          fail(upstreamInvalid(provider, err, '', sentSecrets(d.target)), false);
        }
      },
      error: (err) => {
        if (state === 'attached') return sink!.error(err);
        if (state === 'held') failed = err;
        else if (state === 'peeking') fail(transportError(err, provider), false);
      },
    });
  });
}

/**
 * `log` hears of a stream event that is not the vendor's shape (its raw text, redacted): the
 * stream ends there with an `upstream_invalid` error event, and nothing after it is relayed.
 * With `keepAnswer` (a routed call that learns once it ends), returns the whole answer it
 * delivered, as a completion; else, or when the stream did not end in an answer, null.
 */
export async function relayStream(ctx: CallContext, d: Dispatched, reply: ResponseSink, abort: AbortController, meter: Meter, idempotency: Idempotency, log?: { warn(obj: object, msg: string): void }, keepAnswer = false): Promise<Named | null> {
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

  // the events the dispatch policy read before the head, then the rest of the body
  const opening: Opening = d.opening ?? { decoder: d.adapter.streamDecoder(d.target), events: [], attach: (sink) => d.response.body.consume(sink) };
  const decoder = opening.decoder;
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
    try {
      handle(opening.events);
    } catch (err) {
      finish(err, true);
      body.destroy();
    }
    opening.attach({
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
        if (settled) return;
        try {
          handle(decoder.end());
        } catch (err) {
          return finish(err, true);
        }
        finish();
      },
      error: (err) => finish(err),
    });
    if (!draining) body.resume(); // an opened stream was held paused until now
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
  const assembled = ok && (keepAnswer || ctx.afterAnswer || ctx.capture?.content === 'full') ? completionFromChunks(delivered, { prompt_tokens: finalUsage.promptTokens, completion_tokens: finalUsage.completionTokens }) : null;
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
  if (answered) ctx.served = d.attempt;
  if (answered && ctx.afterAnswer && assembled) await ctx.afterAnswer(assembled, costs).catch(() => undefined); // a cache write never fails the call
  if (tail) recorded?.push(tail);
  if (!res.writableEnded && !res.destroyed) res.end(tail);
  if (ctx.claim) {
    if (answered) await idempotency.complete(ctx.claim, 200, headers, recorded!.join(''));
    else await idempotency.release(ctx.claim);
  }
  if (!answered || !keepAnswer || !assembled) return null;
  return { text: assembled, ...answerOf(assembled), attempt: d.attempt, status: d.response.statusCode, name: d.attempt.model };
}
