// What the HTTP/1.1 client is given and what it answers with: its timeouts, a request, the
// handler that hears the response, the check on the socket connected, and its one error class.
import type { LookupFunction, Socket } from 'node:net';

export type { LookupFunction };

export interface ClientTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  /** How long an idle connection is kept at most; a server's shorter Keep-Alive hint wins. */
  keepAliveMs: number;
}

/** What one exchange hears from its connection. */
export interface ResponseHandler {
  onHeaders(statusCode: number, headers: Record<string, string | string[]>): void;
  onData(chunk: Buffer): void;
  onComplete(): void;
  onError(err: Error): void;
}

/** A request; where it goes (origin, path and query) is its URL's. */
export interface ClientRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Checks the socket actually connected to; an error refuses it. */
export type SocketCheck = (socket: Socket) => Error | null;

/** A failure, with undici's code for it (`UND_ERR_*`), which the pipeline maps. */
export class UpstreamError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'UpstreamError';
    this.code = code;
  }
}

export const closedError = () => new UpstreamError('UND_ERR_CLOSED', 'the client is closed');
export const tooLarge = (max: number) => new UpstreamError('UND_ERR_RES_EXCEEDED_MAX_SIZE', `response body larger than ${max} bytes`);
