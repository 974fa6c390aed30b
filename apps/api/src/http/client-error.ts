// What a connection is told when its bytes are not a request we can read (bad framing,
// a deadline missed, a head too large): the catalogue's envelope, written straight to
// the socket, which then closes. node:http (through Fastify's clientErrorHandler) and
// the socket path answer these cases with the very same bytes.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, type ErrorCode } from '../errors.ts';

export type ClientErrorCode = Extract<ErrorCode, 'invalid_http' | 'request_timeout' | 'headers_too_large'>;

/** The full answer, head and body, for a connection-level failure. */
export function clientErrorAnswer(code: ClientErrorCode): string {
  const e = new ApiError(code);
  const body = JSON.stringify(e.toBody());
  return (
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\n` +
    `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/** The answer in flight on a connection, a ServerResponse or the socket path's FastResponse. */
export interface AnswerInFlight {
  headersSent: boolean;
  writableEnded: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The connection's answer in flight, as the caller sees it each time it is asked: the
 * answer and whether its request was read whole; 'closed' once an answer has closed
 * the connection (`connection: close`); null when none is due.
 */
export type InFlight = { answer: AnswerInFlight; requestComplete: boolean } | 'closed' | null;

/**
 * Answers and closes the connection. Answers still due for complete requests (pipelined
 * ones too, in turn) go out first, and the 400 after them unless one of them closed the
 * connection: node:http gives them or not depending on whether its parser reads the
 * socket natively or through the stream (as after a hand-off). An answer half written is
 * cut, as node:http cuts it; an answer for the very request that failed never comes.
 */
export function failConnection(socket: Socket, code: ClientErrorCode, inFlight: () => InFlight): void {
  if (socket.destroyed) return;
  const now = inFlight();
  if (now === 'closed') return void socket.destroySoon();
  if (now !== null && !now.answer.writableEnded) {
    if (now.answer.headersSent) return void socket.destroy();
    if (now.requestComplete) {
      now.answer.once('close', () => setImmediate(() => failConnection(socket, code, inFlight)));
      return;
    }
  } else if (now !== null) {
    // written, not yet flushed: ask again once it has gone
    now.answer.once('close', () => setImmediate(() => failConnection(socket, code, inFlight)));
    return;
  }
  if (!socket.writable) return void socket.destroy();
  socket.end(clientErrorAnswer(code), () => socket.destroy());
  // a client that never reads must not hold the socket open
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** node:http's client errors, by the code node gives them. */
export function clientErrorCode(err: { code?: string }): ClientErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'invalid_http';
}
