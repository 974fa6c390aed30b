// What a pipeline stage reads a request from and answers on, whichever server received it:
// Fastify's route (node:http) or the socket path (http/fast-path.ts). Both are structural
// subsets of what each server hands over, so neither is cast and the pipeline imports no
// server's types.
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../tenancy/key-cache.ts';

/** What the pipeline reads from a request. */
export interface PipelineRequest {
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The body's text as received, when the server read it whole (the socket path). */
  rawBody?: string;
  principal: Principal | null;
}

/** The raw response a stream is written to, taken over from the server. */
export interface SinkStream {
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  /** False when the client is not keeping up: wait for 'drain' before writing more. */
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  cork(): void;
  uncork(): void;
  on(event: 'close' | 'drain', listener: () => void): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  removeListener(event: 'close' | 'drain', listener: () => void): unknown;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  /** The connection: its 'drain' ends a wait too (the socket path's response emits none of its own). */
  readonly socket?: { once(event: 'drain', listener: () => void): unknown; removeListener(event: 'drain', listener: () => void): unknown } | null;
}

/**
 * The response: a whole answer (`code`, `headers`, `send`, which waits for metering lines to
 * reach their file before anything leaves), or a stream (`hijack`, then `raw`).
 */
export interface ResponseSink {
  /** Milliseconds since the request arrived. */
  readonly elapsedTime: number;
  readonly raw: SinkStream;
  code(status: number): ResponseSink;
  headers(values: Record<string, string>): ResponseSink;
  header(name: string, value: string): ResponseSink;
  send(payload: string): unknown;
  /** The stage writes the stream itself from here on. */
  hijack(): unknown;
}

export type PipelineHandler = (request: PipelineRequest, reply: ResponseSink) => Promise<void>;
