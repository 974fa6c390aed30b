// An HTTP/1.1 client for vendor calls, used only by outbound.ts: keep-alive connections
// per origin, one request in flight per connection, each request written in one write,
// responses framed by Content-Length, chunked encoding or the connection's close. It is
// deliberately small: no redirects, no pipelining, no upgrade, no compression (the
// request never asks for one). Timeouts are swept by one timer per origin instead of
// one timer per request. Errors carry undici's codes, which the pipeline maps. A response
// body larger than the configured maximum ends the exchange (UND_ERR_RES_EXCEEDED_MAX_SIZE),
// and an idle connection is kept no longer than the server's `Keep-Alive: timeout=` allows.
import { connect as tcpConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface ClientTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  /** How long an idle connection is kept at most; a server's shorter Keep-Alive hint wins. */
  keepAliveMs: number;
}

/** A server's Keep-Alive timeout is its own: reuse stops this long before it, so a request never races its close. */
export const KEEP_ALIVE_MARGIN_MS = 1_000;

/**
 * How long a connection may stay idle after this answer: the server's `Keep-Alive: timeout=`
 * hint less the margin, capped at `max`; 0 when the hint leaves no time to reuse it.
 */
export function keepAliveFor(header: string | string[] | undefined, max: number): number {
  const text = Array.isArray(header) ? header.join(',') : header;
  const m = text === undefined ? null : /(?:^|[,;\s])timeout\s*=\s*(\d{1,9})/i.exec(text);
  if (m === null) return max;
  return Math.max(0, Math.min(max, Number(m[1]) * 1000 - KEEP_ALIVE_MARGIN_MS));
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

export type { LookupFunction };

export class UpstreamError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'UpstreamError';
    this.code = code;
  }
}

const MAX_HEAD = 64 * 1024;
const MAX_CHUNK_LINE = 4096;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UNSAFE_VALUE = /[\r\n\0]/;
const FRAMING = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);
const closedError = () => new UpstreamError('UND_ERR_CLOSED', 'the client is closed');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;

type Phase = 'connecting' | 'waiting' | 'body' | 'idle';
const Framing = { None: 0, Length: 1, Chunked: 2, UntilClose: 3 } as const;
type Framing = (typeof Framing)[keyof typeof Framing];
const ChunkState = { Size: 0, Data: 1, DataEnd: 2, Trailers: 3 } as const;
type ChunkState = (typeof ChunkState)[keyof typeof ChunkState];

/** One keep-alive connection and the response it is reading. */
class Connection {
  readonly socket: Socket;
  readonly #origin: Origin;
  phase: Phase = 'connecting';
  /** performance.now() of the last activity, for the timeout sweep. */
  lastActive = performance.now();
  #handler: ResponseHandler | null = null;
  #head: Buffer | null = null;
  #framing: Framing = Framing.None;
  #remaining = 0;
  #chunkState: ChunkState = ChunkState.Size;
  #line = '';
  #keepAlive = true;
  /** How long this connection may stay idle (the server's hint, or the client's own limit). */
  keepAliveMs: number;
  /** Body bytes of the answer being read, against the client's maximum. */
  #bodyBytes = 0;
  readonly #maxBody: number;
  #closed = false;

  /** The exchange waiting for this connection to open. */
  #first: Exchange | null;

  constructor(socket: Socket, origin: Origin, first: Exchange, keepAliveMs: number, maxBody: number) {
    this.socket = socket;
    this.#origin = origin;
    this.keepAliveMs = keepAliveMs;
    this.#maxBody = maxBody;
    this.#first = first;
    this.#handler = first.handler;
    first.conn = this;
    socket.on('data', (c: Buffer) => this.#onData(c));
    socket.on('error', (err: NodeJS.ErrnoException) => this.#fail(err.code === 'ECONNRESET' ? new UpstreamError('UND_ERR_SOCKET', 'other side reset the connection') : err));
    socket.on('close', () => this.#onClose());
  }

  /** Sends the request that waited for the connection to open. */
  connected(): void {
    const first = this.#first;
    this.#first = null;
    if (first !== null && this.#handler === first.handler) this.send(first);
  }

  send(x: Exchange): void {
    x.conn = this;
    this.#handler = x.handler;
    this.#head = null;
    this.#framing = Framing.None;
    this.#bodyBytes = 0;
    this.phase = 'waiting';
    this.lastActive = performance.now();
    this.socket.write(x.text);
  }

  /** Ends the exchange in flight with `err` and drops the connection. */
  abort(err: Error): void {
    this.#fail(err);
  }

  /** Whether the reader has paused this answer's body (then no idle timeout runs). */
  paused = false;

  /** Pauses or resumes reading `handler`'s answer, if it is still this connection's. */
  flow(handler: ResponseHandler, on: boolean): void {
    if (this.#handler !== handler || this.paused === !on) return;
    this.paused = !on;
    this.lastActive = performance.now();
    if (on) this.socket.resume();
    else this.socket.pause();
  }

  /** Ends `handler`'s exchange with `err` if it is still this connection's. */
  abortIf(handler: ResponseHandler, err: Error): void {
    if (this.#handler === handler) this.#fail(err);
  }

  /** Ends what has waited too long in its phase: the exchange with its timeout error, or the idle connection. */
  sweep(now: number, t: ClientTimeouts): void {
    const idle = now - this.lastActive;
    if (this.phase === 'connecting' && idle > t.connectMs) this.#fail(new UpstreamError('UND_ERR_CONNECT_TIMEOUT', `connect timed out after ${t.connectMs} ms`));
    else if (this.phase === 'waiting' && idle > t.firstByteMs) this.#fail(new UpstreamError('UND_ERR_HEADERS_TIMEOUT', `no response headers within ${t.firstByteMs} ms`));
    else if (this.phase === 'body' && !this.paused && idle > t.idleMs) this.#fail(new UpstreamError('UND_ERR_BODY_TIMEOUT', `no response data for ${t.idleMs} ms`));
    else if (this.phase === 'idle' && idle > this.keepAliveMs) this.socket.destroy();
  }

  #onData(chunk: Buffer): void {
    this.lastActive = performance.now();
    if (this.#handler === null) {
      this.socket.destroy(); // bytes nobody asked for: the connection cannot be trusted
      return;
    }
    try {
      if (this.phase === 'waiting') this.#readHead(chunk);
      else this.#readBody(chunk, 0);
    } catch (err) {
      this.#fail(err as Error);
    }
  }

  #readHead(chunk: Buffer): void {
    const buf = this.#head === null ? chunk : Buffer.concat([this.#head, chunk]);
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) {
      if (buf.length > MAX_HEAD) throw new UpstreamError('UND_ERR_HEADERS_OVERFLOW', 'response headers too large');
      this.#head = buf;
      return;
    }
    this.#head = null;
    const lines = buf.toString('latin1', 0, end).split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) throw new UpstreamError('UND_ERR_SOCKET', 'invalid response status line');
    const code = Number(status[2]);
    const headers: Record<string, string | string[]> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon).toLowerCase() : '';
      if (!TOKEN.test(name)) throw new UpstreamError('UND_ERR_SOCKET', 'invalid response header');
      const value = line.slice(colon + 1).trim();
      const seen = headers[name];
      headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    const rest = end + 4;
    if (code < 200) {
      // an interim answer (100 Continue, 103 Early Hints): the final one follows
      if (rest < buf.length) this.#readHead(buf.subarray(rest));
      return;
    }
    const connection = String(headers.connection ?? '').toLowerCase();
    this.#keepAlive = status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.#framing = framingOf(code, headers);
    if (this.#framing === Framing.Length) this.#remaining = Number(headers['content-length']);
    if (this.#framing === Framing.Chunked) {
      this.#chunkState = ChunkState.Size;
      this.#line = '';
    }
    if (this.#framing === Framing.UntilClose) this.#keepAlive = false;
    if (this.#framing === Framing.Length && this.#remaining > this.#maxBody) throw tooLarge(this.#maxBody);
    this.keepAliveMs = keepAliveFor(headers['keep-alive'], this.#origin.keepAliveMs);
    if (this.keepAliveMs === 0) this.#keepAlive = false;
    this.phase = 'body';
    this.#handler!.onHeaders(code, headers);
    if (this.#handler === null) return; // the handler ended the exchange
    // an answer without a body ends at its head; bytes after it mean the connection is not reused
    if (this.#framing === Framing.None || (this.#framing === Framing.Length && this.#remaining === 0)) return this.#complete(rest < buf.length);
    if (rest < buf.length) this.#readBody(buf, rest);
  }

  /** Hands body bytes to the exchange, once they fit under the maximum. */
  #deliver(bytes: Buffer): void {
    this.#bodyBytes += bytes.length;
    if (this.#bodyBytes > this.#maxBody) throw tooLarge(this.#maxBody);
    this.#handler!.onData(bytes);
  }

  #readBody(buf: Buffer, from: number): void {
    switch (this.#framing) {
      case Framing.Length: {
        const take = Math.min(this.#remaining, buf.length - from);
        this.#remaining -= take;
        this.#deliver(from === 0 && take === buf.length ? buf : buf.subarray(from, from + take));
        if (this.#remaining === 0 && this.#handler !== null) {
          if (from + take < buf.length) this.#keepAlive = false; // more than the body: never reuse
          this.#complete();
        }
        return;
      }
      case Framing.UntilClose:
        this.#deliver(from === 0 ? buf : buf.subarray(from));
        return;
      case Framing.Chunked:
        return this.#readChunked(buf, from);
    }
  }

  #readChunked(buf: Buffer, from: number): void {
    let i = from;
    while (i < buf.length && this.#handler !== null) {
      switch (this.#chunkState) {
        case ChunkState.Size:
        case ChunkState.Trailers: {
          const nl = buf.indexOf(10, i);
          const part = buf.toString('latin1', i, nl < 0 ? buf.length : nl);
          this.#line += part;
          if (this.#line.length > MAX_CHUNK_LINE) throw new UpstreamError('UND_ERR_SOCKET', 'invalid chunked encoding');
          if (nl < 0) return;
          i = nl + 1;
          const line = this.#line.endsWith('\r') ? this.#line.slice(0, -1) : this.#line;
          this.#line = '';
          if (this.#chunkState === ChunkState.Trailers) {
            if (line === '') return this.#complete(i < buf.length);
            continue;
          }
          const size = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(line);
          if (!size) throw new UpstreamError('UND_ERR_SOCKET', 'invalid chunked encoding');
          this.#remaining = parseInt(size[1]!, 16);
          this.#chunkState = this.#remaining === 0 ? ChunkState.Trailers : ChunkState.Data;
          break;
        }
        case ChunkState.Data: {
          const take = Math.min(this.#remaining, buf.length - i);
          this.#deliver(buf.subarray(i, i + take));
          this.#remaining -= take;
          i += take;
          if (this.#remaining === 0) {
            this.#chunkState = ChunkState.DataEnd;
            this.#remaining = 2;
          }
          break;
        }
        case ChunkState.DataEnd: {
          // the CRLF after a chunk's data
          const c = buf[i]!;
          if ((this.#remaining === 2 && c !== 13) || (this.#remaining === 1 && c !== 10)) throw new UpstreamError('UND_ERR_SOCKET', 'invalid chunked encoding');
          i++;
          if (--this.#remaining === 0) this.#chunkState = ChunkState.Size;
          break;
        }
      }
    }
  }

  #complete(extraBytes = false): void {
    const handler = this.#handler!;
    this.#handler = null;
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    const reuse = this.#keepAlive && !extraBytes && !this.#origin.closing;
    if (reuse) {
      this.phase = 'idle';
      this.lastActive = performance.now();
    } else this.socket.destroy();
    handler.onComplete();
    this.#origin.released(this, reuse);
  }

  #fail(err: Error): void {
    const handler = this.#handler;
    this.#handler = null;
    this.socket.destroy();
    handler?.onError(err);
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    const handler = this.#handler;
    if (handler !== null) {
      if (this.phase === 'body' && this.#framing === Framing.UntilClose) this.#complete();
      else {
        this.#handler = null;
        handler.onError(new UpstreamError('UND_ERR_SOCKET', 'other side closed'));
      }
    }
    this.#origin.gone(this);
  }
}

const tooLarge = (max: number) => new UpstreamError('UND_ERR_RES_EXCEEDED_MAX_SIZE', `response body larger than ${max} bytes`);

function framingOf(status: number, headers: Record<string, string | string[]>): Framing {
  if (status === 204 || status === 304) return Framing.None;
  const te = headers['transfer-encoding'];
  if (te !== undefined) {
    const codings = (Array.isArray(te) ? te.join(',') : te).toLowerCase();
    return codings.trim().endsWith('chunked') ? Framing.Chunked : Framing.UntilClose;
  }
  const cl = headers['content-length'];
  if (cl !== undefined) {
    if (Array.isArray(cl) || !/^\d{1,15}$/.test(cl)) throw new UpstreamError('UND_ERR_SOCKET', 'invalid content-length');
    return Framing.Length;
  }
  return Framing.UntilClose;
}

function requestText(url: URL, req: ClientRequest): string {
  let head = `${req.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`;
  for (const name in req.headers) {
    if (FRAMING.has(name)) continue; // the client frames the request itself
    const value = req.headers[name]!;
    if (!TOKEN.test(name) || UNSAFE_VALUE.test(value)) throw new UpstreamError('UND_ERR_INVALID_ARG', `invalid request header ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  if (req.body === undefined) return `${head}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
}

/** One request: what to send, who hears the answer, and the connection it is on (null while queued). */
export interface Exchange {
  /** The request as it goes on the wire. */
  text: string;
  handler: ResponseHandler;
  conn: Connection | null;
  origin: Origin;
}

/** The connections to one origin, at most `max` of them, and the requests waiting for one. */
class Origin {
  readonly #url: URL;
  readonly #t: ClientTimeouts;
  readonly #check: SocketCheck | null;
  readonly #max: number;
  readonly #all = new Set<Connection>();
  readonly #idle: Connection[] = [];
  readonly #queue: Exchange[] = [];
  #sweep: NodeJS.Timeout | null = null;
  closing = false;
  #drained: (() => void) | null = null;

  readonly #maxBody: number;

  readonly #lookup: LookupFunction | undefined;

  constructor(url: URL, t: ClientTimeouts, check: SocketCheck | null, max: number, maxBody: number, lookup?: LookupFunction) {
    this.#lookup = lookup;
    this.#url = url;
    this.#t = t;
    this.#check = check;
    this.#max = max;
    this.#maxBody = maxBody;
  }

  get keepAliveMs(): number {
    return this.#t.keepAliveMs;
  }

  start(x: Exchange): void {
    if (this.closing) return x.handler.onError(closedError());
    let conn = this.#idle.pop();
    // one idle past its keep-alive time (the sweep may not have run yet) may be closing at the server
    while (conn !== undefined && performance.now() - conn.lastActive > conn.keepAliveMs) {
      conn.socket.destroy();
      conn = this.#idle.pop();
    }
    if (conn !== undefined) conn.send(x);
    else if (this.#all.size >= this.#max) this.#queue.push(x);
    else this.#open(x);
  }

  /** Takes a request that is still waiting for a connection out of the queue. */
  dequeue(x: Exchange): boolean {
    const i = this.#queue.indexOf(x);
    if (i < 0) return false;
    this.#queue.splice(i, 1);
    return true;
  }

  #open(x: Exchange): void {
    const u = this.#url;
    const tls = u.protocol === 'https:';
    const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    const port = Number(u.port) || (tls ? 443 : 80);
    // a lookup (when given) resolves the name, may refuse it, and the socket connects to what it returned
    const lookup = this.#lookup === undefined ? {} : { lookup: this.#lookup };
    const socket = tls ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'], ...lookup }) : tcpConnect({ host, port, ...lookup });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    // until it connects, a failure or a timeout is this request's
    const conn = new Connection(socket, this, x, this.#t.keepAliveMs, this.#maxBody);
    this.#all.add(conn);
    this.#ensureSweep();
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      const refused = this.#check?.(socket) ?? null;
      if (refused) conn.abort(refused);
      else conn.connected();
    });
  }

  released(conn: Connection, reusable: boolean): void {
    if (!reusable) return; // its close event removes it
    const next = this.#queue.shift();
    if (next !== undefined) conn.send(next);
    else this.#idle.push(conn);
  }

  gone(conn: Connection): void {
    this.#all.delete(conn);
    const i = this.#idle.indexOf(conn);
    if (i >= 0) this.#idle.splice(i, 1);
    const next = this.#queue.shift();
    if (next !== undefined) {
      if (this.closing) next.handler.onError(closedError());
      else this.#open(next);
    }
    if (this.#all.size === 0) {
      if (this.#sweep) clearInterval(this.#sweep);
      this.#sweep = null;
      this.#drained?.();
    }
  }

  #ensureSweep(): void {
    if (this.#sweep !== null) return;
    const t = this.#t;
    const every = Math.max(25, Math.min(1000, Math.min(t.connectMs, t.firstByteMs, t.idleMs) / 8));
    this.#sweep = setInterval(() => {
      const now = performance.now();
      for (const conn of this.#all) conn.sweep(now, t);
    }, every);
    this.#sweep.unref();
  }

  /** Closes idle connections now and the others once their exchange ends. */
  close(): Promise<void> {
    this.closing = true;
    for (const conn of this.#idle) conn.socket.destroy();
    for (const w of this.#queue.splice(0)) w.handler.onError(closedError());
    if (this.#all.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#drained = resolve));
  }
}

export interface ClientOptions {
  timeouts: ClientTimeouts;
  maxConnections: number;
  /** The largest response body accepted, in bytes. */
  maxResponseBytes: number;
  /** Resolves host names for connect (default: the system's, as node:net does). */
  lookup?: LookupFunction;
  check: SocketCheck | null;
}

/** Keep-alive connections per origin. */
export class Http1Client {
  readonly #origins = new Map<string, Origin>();
  readonly #opts: ClientOptions;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
  }

  /** Sends `req` to `url`'s origin; `handler` hears the response. */
  request(url: URL, req: ClientRequest, handler: ResponseHandler): Exchange {
    let origin = this.#origins.get(url.origin);
    if (origin === undefined) {
      origin = new Origin(url, this.#opts.timeouts, this.#opts.check, this.#opts.maxConnections, this.#opts.maxResponseBytes, this.#opts.lookup);
      this.#origins.set(url.origin, origin);
    }
    let text: string;
    try {
      text = requestText(url, req);
    } catch (err) {
      queueMicrotask(() => handler.onError(err as Error));
      return { text: '', handler, conn: null, origin };
    }
    const x: Exchange = { text, handler, conn: null, origin };
    origin.start(x);
    return x;
  }

  /** Pauses (`on` false) or resumes reading an exchange's answer. */
  flow(x: Exchange, on: boolean): void {
    x.conn?.flow(x.handler, on);
  }

  /** Ends an exchange that has not ended yet with `err` (its handler hears it). */
  cancel(x: Exchange, err: Error): void {
    if (x.conn !== null) x.conn.abortIf(x.handler, err);
    else if (x.origin.dequeue(x)) x.handler.onError(err);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#origins.values()].map((o) => o.close()));
    this.#origins.clear();
  }
}
