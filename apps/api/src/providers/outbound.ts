// The one module that talks to the network. Keep-alive pools per origin on
// undici's dispatcher API (no fetch, no stream objects on the hot path), separate
// connect, first-byte and idle timeouts (from config), and an address check on the
// socket actually connected to.
import { Pool, buildConnector, type Dispatcher } from 'undici';
import type { Socket } from 'node:net';
import { isPrivateAddress } from './address-guard.ts';

export interface Timeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export const defaultTimeouts: Timeouts = { connectMs: 5_000, firstByteMs: 60_000, idleMs: 30_000 };

export type AddressPolicy = 'any' | 'public-only';

export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'ERR_BLOCKED_ADDRESS';
}

export interface OutboundRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  policy?: AddressPolicy;
}

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** Who reads a response body as it arrives (a stream relay). */
export interface BodySink {
  data(chunk: Buffer): void;
  end(): void;
  error(err: Error): void;
}

/** A vendor's response, once its status line and headers have arrived. */
export interface OutboundResponse {
  statusCode: number;
  headers: ResponseHeaders;
  body: OutboundBody;
}

/** Response headers as undici's request API gives them: lower-case names, repeats as arrays. */
function parseHeaders(raw: Buffer[]): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}

/**
 * A response body, read either whole (`text()`) or as it arrives (`consume()`). Chunks that
 * arrive before a reader attaches are kept for it. One reader per body.
 */
export class OutboundBody {
  #chunks: Buffer[] = [];
  #size = 0;
  #done = false;
  #error: Error | null = null;
  #sink: BodySink | null = null;
  readonly #abort: (err: Error) => void;

  constructor(abort: (err: Error) => void) {
    this.#abort = abort;
  }

  /** The whole body as UTF-8 text; rejects if the transfer fails. */
  text(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      this.consume({
        data: (c) => {
          chunks.push(c);
          size += c.length;
        },
        end: () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8')),
        error: reject,
      });
    });
  }

  /** Hands every chunk to `sink`, those already here first, then its end or its error. */
  consume(sink: BodySink): void {
    if (this.#sink !== null) throw new Error('a response body has one reader');
    this.#sink = sink;
    const kept = this.#chunks;
    this.#chunks = [];
    this.#size = 0;
    for (const c of kept) sink.data(c);
    if (this.#error !== null) sink.error(this.#error);
    else if (this.#done) sink.end();
  }

  /** Stops the transfer: the upstream request is aborted and the reader gets `err`. */
  destroy(err: Error = Object.assign(new Error('response body destroyed'), { code: 'UND_ERR_ABORTED' })): void {
    this.#abort(err);
  }

  /** Bytes kept for a reader that has not attached yet. */
  get buffered(): number {
    return this.#size;
  }

  push(chunk: Buffer): void {
    if (this.#sink !== null) this.#sink.data(chunk);
    else {
      this.#chunks.push(chunk);
      this.#size += chunk.length;
    }
  }

  end(): void {
    this.#done = true;
    this.#sink?.end();
  }

  fail(err: Error): void {
    if (this.#done || this.#error !== null) return;
    this.#error = err;
    this.#sink?.error(err);
  }
}

/**
 * One request on undici's dispatcher (its legacy handler interface, which the pool calls
 * directly): settles with the response at its headers, then feeds the body. An abort
 * signal ends the request at any point, with the signal's reason as the error.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #resolve: (r: OutboundResponse) => void;
  readonly #reject: (err: unknown) => void;
  readonly #signal: AbortSignal | undefined;
  #abortUpstream: ((err: Error) => void) | null = null;
  #reason: Error | null = null;
  #body: OutboundBody | null = null;
  #settled = false;
  #finished = false;

  constructor(resolve: (r: OutboundResponse) => void, reject: (err: unknown) => void, signal: AbortSignal | undefined) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = (): void => this.#cancel(this.#signal!.reason as Error);

  #cancel(err: Error): void {
    if (this.#finished) return;
    this.#reason ??= err;
    if (this.#abortUpstream !== null) this.#abortUpstream(this.#reason);
  }

  #cleanup(): void {
    this.#finished = true;
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.#reason !== null) return abort(this.#reason);
    this.#abortUpstream = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: the final response follows
    const body = new OutboundBody((err) => this.#cancel(err));
    this.#body = body;
    this.#settled = true;
    let headers: ResponseHeaders | undefined;
    this.#resolve({
      statusCode,
      get headers() {
        return (headers ??= parseHeaders(rawHeaders));
      },
      body,
    });
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#body!.push(chunk);
    return true;
  }

  onComplete(): void {
    this.#cleanup();
    this.#body!.end();
  }

  onError(err: Error): void {
    this.#cleanup();
    const reason = this.#reason ?? err;
    if (this.#settled) this.#body?.fail(reason);
    else {
      this.#settled = true;
      this.#reject(reason);
    }
  }
}

function guardedConnector(policy: AddressPolicy, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, keepAlive: true });
  if (policy === 'any') return connect;
  return (opts, cb) => {
    connect(opts, (err, socket) => {
      if (err || !socket) return cb(err ?? new Error('connect failed'), null);
      const ip = (socket as Socket).remoteAddress ?? '';
      if (isPrivateAddress(ip)) {
        socket.destroy();
        return cb(new BlockedAddressError(`refused to connect to ${ip}: not a public address`), null);
      }
      cb(null, socket);
    });
  };
}

export class Outbound {
  readonly #pools = new Map<string, Pool>();
  readonly #timeouts: Timeouts;

  constructor(timeouts: Partial<Timeouts> = {}) {
    this.#timeouts = { ...defaultTimeouts, ...timeouts };
  }

  #pool(origin: string, policy: AddressPolicy): Pool {
    const t = this.#timeouts;
    const key = policy === 'any' ? origin : `${policy}|${origin}`;
    let pool = this.#pools.get(key);
    if (!pool) {
      pool = new Pool(origin, {
        connect: guardedConnector(policy, t.connectMs),
        headersTimeout: t.firstByteMs,
        bodyTimeout: t.idleMs,
        keepAliveTimeout: 30_000,
        connections: 256,
        pipelining: 1,
      });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /** Settles once the response's headers arrive; its body then arrives on `body`. */
  request(req: OutboundRequest): Promise<OutboundResponse> {
    const signal = req.signal;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const pool = this.#pool(req.url.origin, req.policy ?? 'any');
    return new Promise<OutboundResponse>((resolve, reject) => {
      const exchange = new Exchange(resolve, reject, signal);
      pool.dispatch({ path: req.url.pathname + req.url.search, method: req.method, headers: req.headers, body: req.body }, exchange);
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
    this.#pools.clear();
  }
}
