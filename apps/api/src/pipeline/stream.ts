// Stage: relay (stream). Yields the vendor's SSE as it arrives, one piece per upstream read,
// keeps the usage chunk for metering (passing it on only if the client asked), and returns
// how the stream ended (a `Streamed` outcome): the runner meters it and `respond` makes its
// tail (the `optimizer` block on the final chunk before [DONE]). A client that goes away
// cancels the upstream call (the transport's `gone` signal); what was delivered is metered. The dispatch policy
// opens the stream first (`openStream`): nothing is sent until the vendor's first event
// is read, so a first event not in the vendor's shape, or a vendor error before any
// content, is a real HTTP error that counts on the vendor's circuit and may fail over.
import { ApiError } from '../errors.ts';
import type { CallContext } from './context.ts';
import { completionFromChunks } from './assemble.ts';
import { transportError, type Dispatched, type Opening } from './dispatch.ts';
import { answerOf } from './complete.ts';
import type { Streamed } from './outcome.ts';
import type { Usage } from '../wire/usage.ts';
import type { StreamEvent } from '../providers/types.ts';
import type { BodySink } from '../providers/outbound.ts';
import { streamError, tryJson, vendorIdentifier, vendorMessage } from '../providers/vendor-error.ts';
import type { ErrorCode } from '../errors.ts';
import { sentSecrets } from '../providers/redact.ts';
import { logInvalid, upstreamInvalid } from '../providers/vendor-shape.ts';
import { responseHeaders } from './respond.ts';
import { estimateUsage } from './read-answer.ts';
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

/** Bytes of vendor pieces held for a client that is not reading before the vendor is no longer read. */
const HELD_BYTES = 64 * 1024;

/** A stream being relayed: the headers to send, and the pieces, whose iteration returns how the stream ended. */
export interface Relay {
  kind: 'relay';
  headers: Record<string, string>;
  pieces: AsyncGenerator<string, Streamed, undefined>;
}

/**
 * `log` hears of a stream event that is not the vendor's shape (its raw text, redacted): the
 * stream ends there with an `upstream_invalid` error event, and nothing after it is relayed.
 * With `keepAnswer` (a routed call that learns once it ends), the outcome keeps the whole answer
 * it delivered. `elapsed` is the call's time so far; `gone` aborts when the client leaves.
 */
export function relayStream(ctx: CallContext, d: Dispatched, elapsed: () => number, gone: AbortSignal, log?: { warn(obj: object, msg: string): void }, keepAnswer = false): Relay {
  const headersAt = performance.now();
  const overheadMs = Math.max(0, elapsed() - (headersAt - d.startedAt));
  // the cache stage's verdict (a miss, here) goes with the stream's headers
  const headers: Record<string, string> = { ...responseHeaders(ctx, overheadMs, 'text/event-stream; charset=utf-8'), ...ctx.cacheHeaders, 'cache-control': 'no-cache', connection: 'keep-alive' };
  return { kind: 'relay', headers, pieces: relayPieces(ctx, d, headers, overheadMs, gone, log, keepAnswer) };
}

async function* relayPieces(ctx: CallContext, d: Dispatched, headers: Record<string, string>, overheadMs: number, gone: AbortSignal, log: { warn(obj: object, msg: string): void } | undefined, keepAnswer: boolean): AsyncGenerator<string, Streamed, undefined> {
  const recorded: string[] | null = ctx.claim ? [] : null;
  const body = d.response.body;
  // the events the dispatch policy read before the head, then the rest of the body
  const opening: Opening = d.opening ?? { decoder: d.adapter.streamDecoder(d.target), events: [], attach: (sink) => body.consume(sink) };
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

  // Backpressure: the transport pulls a piece only once the client took the last one; past
  // HELD_BYTES waiting here, the vendor is not read until the client catches up.
  const queue: string[] = [];
  let queued = 0;
  let paused = false;
  let settled = false;
  let wake: (() => void) | null = null;
  const push = (piece: string) => {
    if (piece === '') return;
    queue.push(piece);
    queued += piece.length;
    if (!paused && queued > HELD_BYTES) {
      paused = true;
      body.pause();
    }
    wake?.();
  };

  // What one upstream read brought is one piece (one write), not one write per event.
  const relay = (events: StreamEvent[]): string => {
    let piece = '';
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
          piece += `data: ${vendorError}\n\n`;
          break;
        case 'chunk':
          if (meta === null) meta = JSON.parse(ev.data) as ChunkMeta;
          delivered.push(ev.data); // as the vendor sent it: the caches keep the redacted answer
          piece += `data: ${restorer ? restorer.chunk(ev.data) : ev.data}\n\n`;
          break;
      }
    }
    return piece;
  };
  const finish = (err?: unknown, unreadable = false) => {
    if (settled) return;
    settled = true;
    if (err !== undefined && !gone.aborted) {
      // what the vendor sent could not be read as its stream: never relayed, never a 200's end
      failure = unreadable ? upstreamInvalid(d.target.provider.name, err, '', sentSecrets(d.target)) : transportError(err, d.target.provider.name);
      if (unreadable && log) logInvalid(log, failure, ctx.id);
    }
    wake?.();
  };
  // Read as it arrives, with callbacks: the vendor's reads fill the queue the transport pulls from.
  const handle = (read: () => StreamEvent[]) => {
    try {
      push(relay(read()));
    } catch (err) {
      finish(err, true);
      body.destroy();
    }
  };
  handle(() => opening.events);
  opening.attach({
    data: (buf) => {
      if (!settled) handle(() => decoder.push(buf));
    },
    end: () => {
      if (settled) return;
      try {
        push(relay(decoder.end()));
      } catch (err) {
        return finish(err, true);
      }
      finish();
    },
    error: (err) => finish(err),
  });
  if (!settled) body.resume(); // an opened stream was held paused until now

  for (;;) {
    const piece = queue.shift();
    if (piece !== undefined) {
      queued -= piece.length;
      if (paused && queued <= HELD_BYTES / 2) {
        paused = false;
        body.resume();
      }
      recorded?.push(piece);
      yield piece;
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
  }

  const clientGone = gone.aborted;
  if (!clientGone && !vendorError && !failure && !sawDone) {
    failure = new ApiError('upstream_error', `${d.target.provider.name} ended the stream before it finished.`);
  }
  const upstreamMs = performance.now() - d.startedAt;
  const finalUsage = usage ?? estimateUsage(ctx, deliveredText(delivered));
  d.attempt.usage = finalUsage;
  d.attempt.latencyMs = upstreamMs;
  const ok = !clientGone && !vendorError && !failure;
  d.attempt.outcome = clientGone ? 'cancelled' : ok ? 'ok' : 'error';
  const status = clientGone ? 499 : ok ? 200 : failure ? (failure as ApiError).status : 502;
  const errorCode = clientGone ? 'client_closed_request' : vendorError ? 'upstream_stream_error' : ((failure as ApiError | null)?.code ?? null);
  // the whole answer as one chat.completion: for the recording, the caches and learning
  const assembled = ok && (keepAnswer || ctx.afterAnswer || ctx.capture?.content === 'full') ? completionFromChunks(delivered, { prompt_tokens: finalUsage.promptTokens, completion_tokens: finalUsage.completionTokens }) : null;
  const named = ok && keepAnswer && assembled ? { text: assembled, ...answerOf(assembled), attempt: d.attempt, status: d.response.statusCode, name: d.attempt.model } : null;
  return { kind: 'streamed', headers, attempt: d.attempt, status, errorCode, failure, usage: finalUsage, overheadMs, vendorStatus: d.response.statusCode, assembled, meta, usageChunk, held: restorer?.end() ?? '', recorded, named };
}
