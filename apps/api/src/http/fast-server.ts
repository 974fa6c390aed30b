// The listening server: node:http with the data plane's hot routes read straight off the
// socket. A connection's requests are parsed here while each is a plain, well-formed
// `POST /v1/chat/completions` or `POST /v1/responses` (HTTP/1.1, one Content-Length, JSON, no Expect, Upgrade
// or Transfer-Encoding, no repeated header) and answered through FastResponse. The
// first request that is anything else hands the connection, from that request's first
// byte, to node:http and Fastify for good, so their parser and routes stay the
// reference for every other case, malformed ones included. The key is checked once the
// head is read; deadlines are absolute and the client's FIN is honoured, as node:http does
// (proven by test/fast-path-differential.test.ts). See docs/decisions.md ("Hot path").
import { EventEmitter } from 'node:events';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Principal } from '../tenancy/key-cache.ts';
import { failConnection } from './client-error.ts';

/** A parsed hot-route request: its path, lower-case header names, the body as text, the key's owner. */
export interface FastRequest {
  path: HotPath;
  headers: Record<string, string>;
  body: string;
  principal: Principal;
}

/** Serves hot-route requests; one it does not accept (before anything is written) goes to node:http. */
export interface FastHandler {
  accepts(headers: Record<string, string>): boolean;
  /**
   * Checks the bearer key as soon as the head is read, before any of the body: the key's
   * owner (or a promise of it); a throw (a rejection) when the request is refused.
   */
  authenticate(headers: Record<string, string>, remoteAddress?: string): Principal | Promise<Principal>;
  serve(request: FastRequest, res: FastResponse): void;
  /** Answers a request refused at its head (the reply closes the connection). */
  refuse(err: unknown, headers: Record<string, string>, res: FastResponse, path: HotPath): void;
}

/** The routes read off the socket. */
export const HOT_PATHS = ['/v1/chat/completions', '/v1/responses'] as const;
export type HotPath = (typeof HOT_PATHS)[number];
const REQUEST_LINES = HOT_PATHS.map((path) => ({ path, line: `POST ${path} HTTP/1.1\r\n` }));

/**
 * The hot route whose request line the buffer starts with; undefined while the bytes so far
 * begin one without completing it; null when they begin none (the request goes to node:http).
 */
function requestLineOf(buf: Buffer): { path: HotPath; line: string } | null | undefined {
  for (const r of REQUEST_LINES) {
    const prefix = Math.min(buf.length, r.line.length);
    if (buf.toString('latin1', 0, prefix) === r.line.slice(0, prefix)) return buf.length >= r.line.length ? r : undefined;
  }
  return null;
}
/** Heads larger than this go to node:http, whose limit (16 KiB, counted its own way) then decides. */
const MAX_HEAD = 8 * 1024;
const MAX_HEADERS = 100;
/**
 * A refused request's body larger than this, not all arrived, is never read: the answer
 * closes the connection (as the error handler has node:http do). Smaller ones are read and
 * dropped, and the connection kept, as node:http does.
 */
export const REFUSED_BODY_READ = 64 * 1024;
/** Pipelined bytes kept while an answer is in flight before reading pauses. */
const MAX_PIPELINED = 1024 * 1024;
// A field value may hold tab, visible characters and obs-text, nothing else (RFC 9110 5.5).
// eslint-disable-next-line no-control-regex -- control characters are exactly what it refuses
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\0-\x08\x0a-\x1f\x7f]*?)[ \t]*$/;
const UNSAFE_VALUE = /[\r\n\0]/;
/** Headers whose presence means node:http must frame or route the request. */
const HANDED_OFF = new Set(['transfer-encoding', 'expect', 'upgrade']);

let dateText = '';
let dateAt = 0;
function httpDate(): string {
  const now = Date.now();
  if (now - dateAt >= 1000) {
    dateAt = now - (now % 1000);
    dateText = new Date(dateAt).toUTCString();
  }
  return dateText;
}

/**
 * The subset of ServerResponse the pipeline uses, written straight to the socket: one
 * write for a whole answer, chunked framing for a stream. Emits 'finish' and then
 * 'close' when the answer has gone, or 'close' alone when the client left first.
 */
export class FastResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  readonly #conn: FastConnection;
  #headers: Record<string, string | number> = {};
  #chunked = false;
  #headWritten = false;
  /** The reply asked for the connection to close after it (as Fastify does after an unreadable body). */
  #closeAfter = false;

  constructor(conn: FastConnection) {
    super();
    this.#conn = conn;
  }

  get socket(): Socket {
    return this.#conn.socket;
  }

  /** Whether this answer ends the connection (`connection: close`). */
  get closesConnection(): boolean {
    if (this.#closeAfter) return true;
    for (const name in this.#headers) if (name.toLowerCase() === 'connection' && String(this.#headers[name]).toLowerCase() === 'close') return true;
    return false;
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): this {
    this.statusCode = status;
    this.#headers = headers;
    this.headersSent = true;
    return this;
  }

  #head(contentLength: number | null): string {
    let head = `HTTP/1.1 ${this.statusCode} ${STATUS_CODES[this.statusCode] ?? 'Unknown'}\r\n`;
    for (const name in this.#headers) {
      const lower = name.toLowerCase();
      const value = String(this.#headers[name]);
      if (lower === 'connection' && value.toLowerCase() === 'close') this.#closeAfter = true;
      if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection' || lower === 'date') continue;
      if (UNSAFE_VALUE.test(value)) continue; // never split a response
      head += `${name}: ${value}\r\n`;
    }
    head += contentLength === null ? 'transfer-encoding: chunked\r\n' : `content-length: ${contentLength}\r\n`;
    if (this.#closeAfter) return `${head}date: ${httpDate()}\r\nconnection: close\r\n\r\n`;
    return `${head}date: ${httpDate()}\r\nconnection: keep-alive\r\nkeep-alive: timeout=${this.#conn.keepAliveSec}\r\n\r\n`;
  }

  flushHeaders(): void {
    if (this.#headWritten || this.destroyed) return;
    this.headersSent = true;
    this.#headWritten = true;
    this.#chunked = true;
    this.#conn.socket.write(this.#head(null));
  }

  cork(): void {
    this.#conn.socket.cork();
  }

  uncork(): void {
    this.#conn.socket.uncork();
  }

  write(text: string): boolean {
    if (this.writableEnded || this.destroyed) return false;
    if (!this.#headWritten) this.flushHeaders();
    if (text.length === 0) return true;
    return this.#conn.socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
  }

  end(text = ''): this {
    if (this.writableEnded || this.destroyed) return this;
    this.writableEnded = true;
    this.headersSent = true;
    let out: string;
    if (!this.#headWritten) {
      this.#headWritten = true;
      out = this.#head(Buffer.byteLength(text)) + text;
    } else if (this.#chunked) {
      out = text.length === 0 ? '0\r\n\r\n' : `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`;
    } else out = text;
    this.#conn.socket.write(out, () => {
      this.writableFinished = true;
      this.emit('finish');
      this.emit('close');
      if (this.#closeAfter) this.#conn.closeWhenIdle();
      this.#conn.answered();
    });
    return this;
  }

  destroy(): this {
    this.#conn.socket.destroy();
    return this;
  }

  /** The client went away before the answer finished. */
  gone(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    if (!this.writableFinished) this.emit('close');
  }
}

interface ServerDeps {
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
class FastConnection {
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

/** Lower-case header map, or null when the head is anything the hot route does not take. */
function parseHeaders(text: string): Record<string, string> | null {
  const headers: Record<string, string> = {};
  if (text === '') return null;
  const lines = text.split('\r\n');
  if (lines.length > MAX_HEADERS) return null;
  for (const line of lines) {
    const m = HEADER_LINE.exec(line);
    if (m === null) return null;
    const name = m[1]!.toLowerCase();
    if (name in headers || HANDED_OFF.has(name)) return null;
    headers[name] = m[2]!;
  }
  if (headers.host === undefined || !/^\d{1,10}$/.test(headers['content-length'] ?? '')) return null;
  const connection = headers.connection;
  if (connection !== undefined && connection.toLowerCase() !== 'keep-alive') return null;
  return headers;
}

export interface ServerOptions {
  /** The hot route's handler, once built; null until then (everything goes to node:http). */
  handler: () => FastHandler | null;
  bodyLimit: () => number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** False turns the socket path off: every request goes to node:http and Fastify. */
  fastPath: boolean;
}

/** How often deadlines are checked: node:http's 30 s at most, finer for short deadlines. */
export function checkingIntervalMs(headersTimeoutMs: number): number {
  return Math.min(30_000, Math.max(50, Math.floor(headersTimeoutMs / 4)));
}

/**
 * A Fastify `serverFactory`: node:http for everything, with the hot route read off the
 * socket first (unless turned off). Both keep the same absolute header and request
 * deadlines. Closing the server closes the hot route's idle connections too, and the
 * busy ones once their answer has gone.
 */
export function serverWithFastPath(o: ServerOptions) {
  return (app: (req: IncomingMessage, res: ServerResponse) => void, opts: { keepAliveTimeout?: number; connectionTimeout?: number }): Server => {
    const server = createServer(
      { headersTimeout: o.headersTimeoutMs, requestTimeout: o.requestTimeoutMs, connectionsCheckingInterval: checkingIntervalMs(o.headersTimeoutMs) },
      app,
    );
    // What Fastify sets on the server it makes itself (its requestTimeout is ours).
    server.keepAliveTimeout = opts.keepAliveTimeout ?? 72_000;
    server.setTimeout(opts.connectionTimeout ?? 0);
    if (!o.fastPath) return server;
    const nodeListener = server.listeners('connection')[0] as (socket: Socket) => void;
    server.removeAllListeners('connection');
    const connections = new Set<FastConnection>();
    const deps: ServerDeps = {
      handler: o.handler,
      handOff: (socket) => nodeListener.call(server, socket),
      bodyLimit: o.bodyLimit,
      keepAliveMs: server.keepAliveTimeout,
      headersTimeoutMs: o.headersTimeoutMs,
      requestTimeoutMs: o.requestTimeoutMs,
      connections,
    };
    server.on('connection', (socket: Socket) => new FastConnection(socket, deps));
    // One sweep for every connection's deadlines, rather than a timer per request.
    const sweep = setInterval(() => {
      const now = Date.now();
      for (const c of connections) c.check(now);
    }, Math.min(1000, checkingIntervalMs(o.headersTimeoutMs)));
    sweep.unref();
    server.on('close', () => clearInterval(sweep));
    const closeIdle = server.closeIdleConnections.bind(server);
    server.closeIdleConnections = () => {
      for (const c of connections) c.closeWhenIdle();
      closeIdle();
    };
    const closeAll = server.closeAllConnections.bind(server);
    server.closeAllConnections = () => {
      for (const c of connections) c.socket.destroy();
      closeAll();
    };
    const close = server.close.bind(server);
    server.close = (cb?: (err?: Error) => void) => {
      for (const c of connections) c.closeWhenIdle();
      return close(cb);
    };
    return server;
  };
}
