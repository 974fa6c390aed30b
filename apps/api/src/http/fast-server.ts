// The listening server: node:http with the data plane's hot route read straight off the
// socket. A connection's requests are parsed here while each is a plain, well-formed
// `POST /v1/chat/completions` (HTTP/1.1, one Content-Length, JSON, no Expect, Upgrade
// or Transfer-Encoding, no repeated header) and answered through FastResponse. The
// first request that is anything else hands the connection, from that request's first
// byte, to node:http and Fastify for good, so their parser and routes stay the
// reference for every other case, malformed ones included. See docs/decisions.md.
import { EventEmitter } from 'node:events';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A parsed hot-route request: lower-case header names, the body as text. */
export interface FastRequest {
  headers: Record<string, string>;
  body: string;
}

/** Serves hot-route requests; one it does not accept (before anything is written) goes to node:http. */
export interface FastHandler {
  accepts(headers: Record<string, string>): boolean;
  serve(request: FastRequest, res: FastResponse): void;
}

const REQUEST_LINE = 'POST /v1/chat/completions HTTP/1.1\r\n';
const MAX_HEAD = 16 * 1024;
const MAX_HEADERS = 100;
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
  connections: Set<FastConnection>;
}

/** One client connection while its requests are on the hot route. */
class FastConnection {
  readonly socket: Socket;
  readonly keepAliveSec: number;
  readonly #d: ServerDeps;
  /** Bytes read and not yet used, in arrival order. */
  #chunks: Buffer[] = [];
  #size = 0;
  /** The request whose head is read and whose body is still arriving. */
  #pending: { headers: Record<string, string>; handler: FastHandler; start: number; length: number } | null = null;
  #response: FastResponse | null = null;
  #closing = false;

  constructor(socket: Socket, deps: ServerDeps) {
    this.socket = socket;
    this.#d = deps;
    this.keepAliveSec = Math.round(deps.keepAliveMs / 1000);
    deps.connections.add(this);
    socket.setNoDelay(true);
    socket.setTimeout(deps.headersTimeoutMs);
    socket.on('data', this.#onData);
    socket.on('timeout', this.#onTimeout);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  /** Ends the connection once its answer in flight, if any, has gone. */
  closeWhenIdle(): void {
    this.#closing = true;
    if (this.#response === null) this.socket.destroy();
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#response === null) this.#next();
    else if (this.#size > MAX_PIPELINED) this.socket.pause(); // read on once the answer in flight has gone
  };

  /** The unread bytes as one buffer. */
  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0]!;
  }

  readonly #onTimeout = (): void => {
    if (this.#response === null) this.socket.destroy(); // idle too long, or a request that never finishes arriving
  };

  readonly #onError = (): void => undefined; // 'close' follows

  readonly #onClose = (): void => {
    this.#d.connections.delete(this);
    this.#response?.gone();
  };

  /** Called by the response once its last byte is written. */
  answered(): void {
    this.#response = null;
    if (this.#closing) return void this.socket.destroy();
    this.socket.setTimeout(this.#size === 0 ? this.#d.keepAliveMs : this.#d.headersTimeoutMs);
    if (this.socket.isPaused()) this.socket.resume();
    if (this.#size > 0) this.#next();
  }

  /** Reads the next request from the buffer: serves it, waits for more bytes, or hands off. */
  #next(): void {
    if (this.#pending === null) {
      const buf = this.#joined();
      const prefix = Math.min(buf.length, REQUEST_LINE.length);
      if (buf.toString('latin1', 0, prefix) !== REQUEST_LINE.slice(0, prefix)) return this.#handOff();
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEAD) this.#handOff();
        return;
      }
      const headers = parseHeaders(buf.toString('latin1', REQUEST_LINE.length, end));
      const handler = this.#d.handler();
      const length = headers === null ? NaN : Number(headers['content-length']);
      if (headers === null || handler === null || !(length <= this.#d.bodyLimit()) || !handler.accepts(headers)) return this.#handOff();
      this.#pending = { headers, handler, start: end + 4, length };
    }
    const { headers, handler, start, length } = this.#pending;
    if (this.#size < start + length) return; // the body is still arriving
    const buf = this.#joined();
    const body = buf.toString('utf8', start, start + length);
    const rest = buf.length - start - length;
    this.#chunks = rest > 0 ? [buf.subarray(start + length)] : [];
    this.#size = rest;
    this.#pending = null;
    const res = new FastResponse(this);
    this.#response = res;
    this.socket.setTimeout(0); // an answer may stream for as long as the vendor does
    handler.serve({ headers, body }, res);
  }

  /** Gives the connection, unread bytes first, to node:http for good. */
  #handOff(): void {
    const s = this.socket;
    s.removeListener('data', this.#onData);
    s.removeListener('timeout', this.#onTimeout);
    s.removeListener('error', this.#onError);
    s.removeListener('close', this.#onClose);
    s.setTimeout(0);
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

/**
 * A Fastify `serverFactory`: node:http for everything, with the hot route read off the
 * socket first. Closing the server closes the hot route's idle connections too, and the
 * busy ones once their answer has gone.
 */
export function serverWithFastPath(handler: () => FastHandler | null, bodyLimit: () => number) {
  return (app: (req: IncomingMessage, res: ServerResponse) => void, opts: { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number }): Server => {
    const server = createServer(app);
    // What Fastify sets on the server it makes itself.
    server.keepAliveTimeout = opts.keepAliveTimeout ?? 72_000;
    server.requestTimeout = opts.requestTimeout ?? 0;
    server.setTimeout(opts.connectionTimeout ?? 0);
    const nodeListener = server.listeners('connection')[0] as (socket: Socket) => void;
    server.removeAllListeners('connection');
    const connections = new Set<FastConnection>();
    const deps: ServerDeps = {
      handler,
      handOff: (socket) => nodeListener.call(server, socket),
      bodyLimit,
      keepAliveMs: server.keepAliveTimeout,
      headersTimeoutMs: server.headersTimeout,
      connections,
    };
    server.on('connection', (socket: Socket) => new FastConnection(socket, deps));
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
