// One keep-alive connection of the HTTP/1.1 client and the answer it is reading: the head,
// then the body framed by Content-Length, chunked encoding or the connection's close, under
// the client's maximum; its phase (connecting, waiting, body, idle) is what the timeout sweep
// reads.
import type { Socket } from 'node:net';
import { type ClientTimeouts, type ResponseHandler, tooLarge, UpstreamError } from './types.ts';
import { Framing, framingOf, keepAliveFor, MAX_CHUNK_LINE, MAX_HEAD, STATUS_LINE, TOKEN } from './wire.ts';

/** One request: what to send, who hears the answer, and the connection it is on (null while queued). */
export interface Exchange {
  /** The request as it goes on the wire. */
  text: string;
  handler: ResponseHandler;
  conn: Connection | null;
  origin: ExchangeQueue;
}

/** Where an exchange waits for a connection. */
export interface ExchangeQueue {
  /** Takes a request that is still waiting for a connection out of the queue. */
  dequeue(x: Exchange): boolean;
}

/** The origin a connection belongs to, as the connection sees it. */
export interface ConnectionOwner {
  /** The client's own limit on an idle connection. */
  readonly keepAliveMs: number;
  /** The client is closing: no connection is reused. */
  readonly closing: boolean;
  /** The exchange ended; `reusable` when the connection may take the next one. */
  released(conn: Connection, reusable: boolean): void;
  /** The connection closed. */
  gone(conn: Connection): void;
}

type Phase = 'connecting' | 'waiting' | 'body' | 'idle';
const ChunkState = { Size: 0, Data: 1, DataEnd: 2, Trailers: 3 } as const;
type ChunkState = (typeof ChunkState)[keyof typeof ChunkState];

/** One keep-alive connection and the response it is reading. */
export class Connection {
  readonly socket: Socket;
  readonly #origin: ConnectionOwner;
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

  constructor(socket: Socket, origin: ConnectionOwner, first: Exchange, keepAliveMs: number, maxBody: number) {
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
