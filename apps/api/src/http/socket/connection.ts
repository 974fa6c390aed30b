// One client connection while its requests are on the socket path's hot routes: it reads each
// request off the socket, checks the key once the head is read, serves the request through a
// FastResponse, enforces the header, request and keep-alive deadlines, and hands the
// connection to node:http for good at the first request that is anything else.
import type { Socket } from 'node:net';
import type { Principal } from '../../tenancy/key-cache.ts';
import { failConnection } from '../client-error.ts';
import { type HotPath, MAX_HEAD, parseHeaders, requestLineOf } from './head.ts';
import { FastResponse, type ResponseConnection } from './response.ts';
import type { FastHandler } from './types.ts';

/**
 * A refused request's body larger than this, not all arrived, is never read: the answer
 * closes the connection (as the error handler has node:http do). Smaller ones are read and
 * dropped, and the connection kept, as node:http does.
 */
export const REFUSED_BODY_READ = 64 * 1024;
/** Pipelined bytes kept while an answer is in flight before reading pauses. */
const MAX_PIPELINED = 1024 * 1024;

export interface ServerDeps {
  handler: () => FastHandler | null;
  /** node:http's own connection listener, which takes over a handed-off socket. */
  handOff: (socket: Socket) => void;
  bodyLimit: () => number;
  keepAliveMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  connections: Set<FastConnection>;
}

/** A request whose head is read: its key being checked, or its body arriving. */
interface Pending {
  path: HotPath;
  headers: Record<string, string>;
  handler: FastHandler;
  /** Where the body starts in the buffer. */
  start: number;
  length: number;
  /** Null while the key is being checked (reading is paused meanwhile). */
  principal: Principal | null;
}

/**
 * One client connection while its requests are on the hot route. Deadlines are absolute,
 * as node:http's are: from a request's first byte (or the connection's opening, for its
 * first request) the head must be read within the headers timeout and the body within
 * the request timeout, however steadily the bytes trickle in; between requests the
 * keep-alive time applies. The server's sweep (`check`) enforces them.
 */
export class FastConnection implements ResponseConnection {
  readonly socket: Socket;
  readonly keepAliveSec: number;
  readonly #d: ServerDeps;
  /** Bytes read and not yet used, in arrival order. */
  #chunks: Buffer[] = [];
  #size = 0;
  #pending: Pending | null = null;
  #response: FastResponse | null = null;
  /** When the request being read began (ms); 0 while none is (answering, or waiting between requests). */
  #requestStart: number;
  /** When the connection fell idle after an answer (ms); 0 otherwise. */
  #idleSince = 0;
  #closing = false;
  /** An answer said `connection: close`. */
  #closedByAnswer = false;
  /** A connection-level failure owns the socket from now on (see #fail). */
  #failed = false;
  /** Close by FIN and give the client a moment to read the answer before the socket goes. */
  #linger = false;

  constructor(socket: Socket, deps: ServerDeps) {
    this.socket = socket;
    this.#d = deps;
    this.keepAliveSec = Math.round(deps.keepAliveMs / 1000);
    this.#requestStart = Date.now(); // as node:http, the first request's clock starts with the connection
    deps.connections.add(this);
    socket.setNoDelay(true);
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  /** Ends the connection once its answer in flight, if any, has gone. */
  closeWhenIdle(): void {
    this.#closing = true;
    if (this.#response === null) this.socket.destroy();
  }

  /** The sweep: cuts a request past its deadline (408) or a connection idle past keep-alive. */
  check(now: number): void {
    if (this.#requestStart > 0) {
      const elapsed = now - this.#requestStart;
      const headRead = this.#pending !== null;
      if (elapsed > this.#d.requestTimeoutMs || (!headRead && elapsed > this.#d.headersTimeoutMs)) this.#fail('request_timeout');
    } else if (this.#idleSince > 0 && now - this.#idleSince > this.#d.keepAliveMs) this.socket.destroy();
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#failed) return;
    if (this.#requestStart === 0 && this.#response === null) {
      this.#requestStart = Date.now(); // a new request's first byte
      this.#idleSince = 0;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#response === null) this.#next();
    else if (this.#size > MAX_PIPELINED) this.socket.pause(); // read on once the answer in flight has gone
  };

  /**
   * The client's FIN, as node:http takes it: a request half read is answered 400 (after
   * the answer in flight, if any) and the connection closed; otherwise an answer in flight
   * is abandoned (the pipeline sees the client leave) and the connection closes.
   */
  readonly #onEnd = (): void => {
    const res = this.#response;
    if (this.#pending !== null || (this.#size > 0 && !this.#holdsWholeRequest())) return this.#fail('invalid_http');
    res?.gone();
    this.socket.destroySoon();
  };

  /** Whether the unread bytes are whole requests (which node:http would have parsed before the FIN). */
  #holdsWholeRequest(): boolean {
    const buf = this.#joined();
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const m = /\r\ncontent-length:[ \t]*(\d+)/i.exec(buf.toString('latin1', 0, end));
    return buf.length >= end + 4 + (m ? Number(m[1]) : 0);
  }

  /** Answers a connection-level failure (unless an answer has begun) and closes. */
  #fail(code: 'request_timeout' | 'invalid_http'): void {
    this.#requestStart = 0;
    this.#failed = true;
    // the socket path reads no request ahead of its answer: at most one answer is due, for a complete request
    failConnection(this.socket, code, () => {
      const res = this.#response;
      if (res === null) return this.#closedByAnswer ? 'closed' : null;
      if (res.writableFinished && res.closesConnection) return 'closed';
      return { answer: res, requestComplete: true };
    });
  }

  /** The unread bytes as one buffer. */
  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  readonly #onError = (): void => undefined; // 'close' follows

  readonly #onClose = (): void => {
    this.#d.connections.delete(this);
    this.#response?.gone();
  };

  /** Called by the response once its last byte is written. */
  answered(): void {
    if (this.#response?.closesConnection) this.#closedByAnswer = true;
    this.#response = null;
    if (this.#failed) return;
    if (this.#linger) {
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 1000).unref();
      return;
    }
    if (this.#closing) return void this.socket.destroy();
    this.#readOn();
  }

  /** Between requests: wait for the next one, or read the one already buffered. */
  #readOn(): void {
    if (this.socket.isPaused()) this.socket.resume();
    if (this.#size === 0) {
      this.#idleSince = Date.now();
      return;
    }
    this.#requestStart = Date.now();
    this.#next();
  }

  /** Reads the next request from the buffer: serves it, waits for more bytes, or hands off. */
  #next(): void {
    if (this.#pending === null) {
      const buf = this.#joined();
      const request = requestLineOf(buf);
      if (request === null) return this.#handOff();
      if (request === undefined) return; // the request line is still arriving
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0 || end > MAX_HEAD) {
        if (buf.length > MAX_HEAD) this.#handOff();
        return;
      }
      const headers = parseHeaders(buf.toString('latin1', request.line.length, end));
      const handler = this.#d.handler();
      const length = headers === null ? NaN : Number(headers['content-length']);
      if (headers === null || handler === null || !(length <= this.#d.bodyLimit()) || !handler.accepts(headers)) return this.#handOff();
      const pending: Pending = { path: request.path, headers, handler, start: end + 4, length, principal: null };
      this.#pending = pending;
      // The key is checked now, before any of the body is kept (see #refused).
      let principal: Principal | Promise<Principal>;
      try {
        principal = handler.authenticate(headers, this.socket.remoteAddress);
      } catch (err) {
        return this.#refused(err);
      }
      if (principal instanceof Promise) {
        this.socket.pause(); // nothing more is read until the key is known
        principal.then(
          (p) => {
            pending.principal = p;
            this.socket.resume();
            if (this.#pending === pending && this.#response === null) this.#next();
          },
          (err: unknown) => {
            if (this.#pending === pending) this.#refused(err);
          },
        );
        return;
      }
      pending.principal = principal;
    }
    const { path, headers, handler, start, length, principal } = this.#pending;
    if (principal === null || this.#size < start + length) return; // the key is being checked, or the body is still arriving
    const buf = this.#joined();
    const body = buf.toString('utf8', start, start + length);
    const rest = buf.length - start - length;
    this.#chunks = rest > 0 ? [buf.subarray(start + length)] : [];
    this.#size = rest;
    this.#pending = null;
    this.#requestStart = 0; // no deadline while an answer is made: it may stream for as long as the vendor does
    const res = new FastResponse(this);
    this.#response = res;
    handler.serve({ path, headers, body, principal }, res);
  }

  /**
   * A request refused at its head. With a large body still to come the answer is given at
   * once and the connection closed without reading any more: read and dropped, every piece
   * would still be a buffer for the garbage collector (RSS grows with the traffic).
   * Otherwise node:http and Fastify take the connection from the request's first byte and
   * answer as they always have (401 at once, the small body dropped, the connection kept).
   */
  #refused(err: unknown): void {
    const { path, headers, handler, start, length } = this.#pending!;
    if (length <= REFUSED_BODY_READ || this.#size >= start + length) return this.#handOff();
    this.socket.pause();
    this.#pending = null;
    this.#chunks = [];
    this.#size = 0;
    this.#requestStart = 0;
    this.#closing = true;
    this.#linger = true;
    const res = new FastResponse(this);
    this.#response = res;
    handler.refuse(err, headers, res, path);
  }

  /** Gives the connection, unread bytes first, to node:http for good. */
  #handOff(): void {
    const s = this.socket;
    s.removeListener('data', this.#onData);
    s.removeListener('end', this.#onEnd);
    s.removeListener('error', this.#onError);
    s.removeListener('close', this.#onClose);
    this.#d.connections.delete(this);
    s.pause();
    if (this.#size > 0) s.unshift(this.#joined());
    this.#chunks = [];
    this.#size = 0;
    this.#pending = null;
    // node:http reads through the socket's stream (in order, after the bytes put back) rather
    // than straight from the handle, as it does for any socket already read from JavaScript
    const handle = (s as unknown as { _handle?: { _consumed?: boolean } })._handle;
    if (handle) handle._consumed = true;
    this.#d.handOff(s);
    s.resume();
  }
}
