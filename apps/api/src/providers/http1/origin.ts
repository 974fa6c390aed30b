// The connections of the HTTP/1.1 client to one origin, at most a given number of them, the
// idle ones kept for reuse, and the requests waiting for one; one timer per origin sweeps
// every connection's timeouts.
import { connect as tcpConnect, isIP, type LookupFunction } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Connection, type ConnectionOwner, type Exchange, type ExchangeQueue } from './connection.ts';
import { type ClientTimeouts, closedError, type SocketCheck } from './types.ts';

/** The connections to one origin, at most `max` of them, and the requests waiting for one. */
export class Origin implements ExchangeQueue, ConnectionOwner {
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
