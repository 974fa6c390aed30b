// Renders the pipeline's Reply (pipeline/reply.ts) on a server's response: Fastify's reply or
// the socket path's (fast-path.ts), which are both a `ReplySink`. A whole body is sent (the
// server's own send waits for the metering lines to reach their file); a stream is written
// piece by piece as it comes, each piece in one write, waiting for the client to drain when it
// is not keeping up, its last piece with the end. A stream is read to its end even after the
// client has gone: its call is metered there.
import type { PipelineRequest, Reply, StreamBody } from '../pipeline/reply.ts';

/** The raw response a stream is written to, taken over from the server. */
export interface RawStream {
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  /** False when the client is not keeping up: wait for 'drain' before writing more. */
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  on(event: 'close', listener: () => void): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  removeListener(event: 'close' | 'drain', listener: () => void): unknown;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  /** The connection: its 'drain' ends a wait too (the socket path's response emits none of its own). */
  readonly socket?: { once(event: 'drain', listener: () => void): unknown; removeListener(event: 'drain', listener: () => void): unknown } | null;
}

/** What both servers' replies are: a whole answer (`code`, `headers`, `send`), or a stream (`hijack`, then `raw`). */
export interface ReplySink {
  /** Milliseconds since the request arrived. */
  readonly elapsedTime: number;
  readonly raw: RawStream;
  code(status: number): unknown;
  headers(values: Record<string, string>): unknown;
  send(payload: string): unknown;
  /** The server leaves the response to us from here on. */
  hijack(): unknown;
}

/** The request side the pipeline needs from a server's response: the call's clock, and a signal for a client that left before its answer went whole. */
export function clientOf(sink: ReplySink): Pick<PipelineRequest, 'elapsed' | 'gone'> {
  const left = new AbortController();
  sink.raw.on('close', () => {
    if (!sink.raw.writableFinished) left.abort();
  });
  return { elapsed: () => sink.elapsedTime, gone: left.signal };
}

/** Renders `reply`; settles once a stream has ended (a whole body is handed to the server's send at once). Its `after` runs then. */
export function renderReply(reply: Reply, sink: ReplySink): Promise<void> | undefined {
  if (typeof reply.body === 'string') {
    sink.code(reply.status);
    sink.headers(reply.headers);
    sink.send(reply.body);
    reply.after?.();
    return undefined;
  }
  sink.hijack();
  return renderStream(sink.raw, reply.status, reply.headers, reply.body).finally(() => reply.after?.());
}

const open = (res: RawStream) => !res.writableEnded && !res.destroyed;

/** Resolves once the client drains its buffer (node:http's response or the socket path's socket says so) or leaves. */
function drained(res: RawStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.removeListener('drain', done);
      res.removeListener('close', done);
      res.socket?.removeListener('drain', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    res.socket?.once('drain', done);
  });
}

async function renderStream(res: RawStream, status: number, headers: Record<string, string>, body: StreamBody): Promise<void> {
  res.writeHead(status, headers);
  res.flushHeaders();
  const pieces = body[Symbol.asyncIterator]();
  for (;;) {
    const r = await pieces.next();
    if (r.done) {
      if (open(res)) res.end(r.value);
      return;
    }
    if (open(res) && !res.write(r.value) && open(res)) await drained(res);
  }
}
