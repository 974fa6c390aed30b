// The answer on the socket path: the subset of node:http's ServerResponse the pipeline uses,
// written straight to the socket.
import { EventEmitter } from 'node:events';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

const UNSAFE_VALUE = /[\r\n\0]/;

/** The connection an answer is written on, as the answer sees it. */
export interface ResponseConnection {
  readonly socket: Socket;
  /** The keep-alive time the answer announces, in seconds. */
  readonly keepAliveSec: number;
  /** Ends the connection once its answer in flight, if any, has gone. */
  closeWhenIdle(): void;
  /** Called once the answer's last byte is written. */
  answered(): void;
}

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
  readonly #conn: ResponseConnection;
  #headers: Record<string, string | number> = {};
  #chunked = false;
  #headWritten = false;
  /** The reply asked for the connection to close after it (as Fastify does after an unreadable body). */
  #closeAfter = false;

  constructor(conn: ResponseConnection) {
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
