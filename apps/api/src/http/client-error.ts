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

/** What the caller knows of the answer in flight. */
export interface InFlightState {
  /** Its request was read whole (else the failure is in that very request, and no other answer will come). */
  requestComplete: boolean;
  /** It closes the connection itself (`connection: close`): nothing may follow it. */
  closes: boolean;
}

/**
 * Answers and closes the connection. An answer still to be written for an earlier,
 * complete request goes first (node:http gives it or not depending on how its parser
 * is fed), and the 400 follows unless that answer closes the connection; one half
 * written is cut, as node:http cuts it.
 */
export function failConnection(socket: Socket, code: ClientErrorCode, current: AnswerInFlight | null, state: InFlightState = { requestComplete: true, closes: false }): void {
  if (socket.destroyed) return;
  if (current !== null && state.closes) {
    if (current.writableEnded) current.once('close', () => socket.destroy());
    else socket.destroy();
    return;
  }
  if (current !== null && !current.writableEnded) {
    if (current.headersSent) return void socket.destroy();
    if (state.requestComplete) {
      current.once('close', () => failConnection(socket, code, null));
      return;
    }
    // its request is the one cut short: no answer will come for it but this one
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
