// What the pipeline reads a request from and what it answers with, whichever transport received
// it: Fastify's route (node:http), the socket path (http/fast-path.ts) or a managed agent's
// in-process call (managed/gateway-call.ts). The pipeline returns a `Reply` as a value; the
// transport renders it (http/render-reply.ts) and the pipeline imports no server's types.
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../tenancy/key-cache.ts';

/** What the pipeline reads from a request. */
export interface PipelineRequest {
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The body's text as received, when the transport read it whole (the socket path). */
  rawBody?: string;
  principal: Principal | null;
  /** Milliseconds since the request arrived. */
  elapsed(): number;
  /** Aborted when the client leaves before its answer has gone whole: the call's upstream work stops. */
  gone: AbortSignal;
}

/**
 * A streamed body: the pieces to write as they come (one upstream read's worth each, written in
 * one go); the value the iteration returns is the last piece, which goes out with the end. A
 * transport runs the iteration to its end whatever happens to the client: the call is metered,
 * kept for an idempotent replay and its learning queued there.
 */
export type StreamBody = AsyncIterable<string, string, undefined>;

/** The answer, as a value: a whole body, or a stream. A failure is not a Reply: it is thrown as the catalogue's `ApiError`, and each transport's one error handler answers its envelope. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | StreamBody;
  /** The transport calls this once the Reply has gone (a stream: once it has ended): what a call learns after its answer is queued then. */
  after?: () => void;
}

export type PipelineHandler = (request: PipelineRequest) => Promise<Reply>;

/** A Reply's whole body as one text (a stream read to its end, the last piece included). */
export async function bodyText(reply: Reply): Promise<string> {
  if (typeof reply.body === 'string') return reply.body;
  const it = reply.body[Symbol.asyncIterator]();
  let out = '';
  for (;;) {
    const r = await it.next();
    out += r.value;
    if (r.done) return out;
  }
}

/** A stream's pieces, each passed through `map` (the last one too); a piece mapped to '' is not written. */
export async function* mapStream(body: StreamBody, map: (piece: string) => string): AsyncGenerator<string, string, undefined> {
  const it = body[Symbol.asyncIterator]();
  for (;;) {
    const r = await it.next();
    if (r.done) return map(r.value);
    const out = map(r.value);
    if (out !== '') yield out;
  }
}
