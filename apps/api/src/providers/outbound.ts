// The one module that talks to the network (with its HTTP/1.1 client, http1-client.ts):
// keep-alive connections per origin, no fetch and no stream objects on the hot path,
// separate connect, first-byte and idle timeouts (from config), and an address check
// on the socket actually connected to.
//
// Under the `public-only` policy (design §11: outbound URLs a tenant or a user chose) a host
// name is resolved first and refused if any of its addresses is not public, the socket
// connects to an address that was checked (pinned: no second lookup can swap it), an
// address literal is checked before connecting, and the connected socket is checked again.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { isReachable, refusalOfUrl, type AllowList } from '../security/address-guard.ts';
import { Http1Client, type Exchange as ClientExchange, type LookupFunction, type ResponseHandler, type SocketCheck } from './http1-client.ts';

export interface Timeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export const defaultTimeouts: Timeouts = { connectMs: 5_000, firstByteMs: 60_000, idleMs: 30_000 };

/** The largest vendor response body read by default (UPSTREAM_MAX_RESPONSE_BYTES). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** How long an idle vendor connection is kept at most, unless the vendor's Keep-Alive hint is shorter. */
export const KEEP_ALIVE_MS = 30_000;

/** Every address of a host name. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface OutboundOptions extends Partial<Timeouts> {
  maxResponseBytes?: number;
  /** Resolves host names (default: the system's resolver); tests give a stub. */
  resolve?: Resolver;
  /** Ranges the operator opened to the `public-only` policy (OUTBOUND_ALLOW_LIST); none by default. */
  allow?: AllowList;
}

/** A node:net lookup through `resolve` that, for `publicOnly`, refuses a name with any address that is not public. */
function lookupWith(resolve: Resolver, publicOnly: boolean, allow: AllowList | null = null): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        const blocked = publicOnly ? addresses.find((a) => !isReachable(a, allow)) : undefined;
        if (blocked !== undefined) throw new BlockedAddressError(`refused to connect to ${hostname}: ${blocked} is not a public address`);
        const list = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 4));
  };
}

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
  readonly #flow: (on: boolean) => void;

  constructor(abort: (err: Error) => void, flow: (on: boolean) => void = () => undefined) {
    this.#abort = abort;
    this.#flow = flow;
  }

  /** Stops reading from the vendor (its socket), for a reader that cannot keep up; the body's idle timeout waits too. */
  pause(): void {
    this.#flow(false);
  }

  /** Reads from the vendor again after `pause()`. */
  resume(): void {
    this.#flow(true);
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
 * One request: settles with the response at its headers, then feeds the body. An abort
 * signal ends the request at any point, with the signal's reason as the error.
 */
class Exchange implements ResponseHandler {
  readonly #resolve: (r: OutboundResponse) => void;
  readonly #reject: (err: unknown) => void;
  readonly #signal: AbortSignal | undefined;
  readonly #client: Http1Client;
  #exchange: ClientExchange | null = null;
  #reason: Error | null = null;
  #body: OutboundBody | null = null;
  #finished = false;

  constructor(client: Http1Client, resolve: (r: OutboundResponse) => void, reject: (err: unknown) => void, signal: AbortSignal | undefined) {
    this.#client = client;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort);
  }

  start(req: OutboundRequest): void {
    this.#exchange = this.#client.request(req.url, { method: req.method, headers: req.headers, body: req.body }, this);
  }

  readonly #onAbort = (): void => this.#cancel(this.#signal!.reason as Error);

  #cancel(err: Error): void {
    if (this.#finished) return;
    this.#reason ??= err;
    if (this.#exchange !== null) this.#client.cancel(this.#exchange, this.#reason);
  }

  #cleanup(): void {
    this.#finished = true;
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }

  onHeaders(statusCode: number, headers: ResponseHeaders): void {
    const body = new OutboundBody(
      (err) => this.#cancel(err),
      (on) => {
        if (this.#exchange !== null && !this.#finished) this.#client.flow(this.#exchange, on);
      },
    );
    this.#body = body;
    this.#resolve({ statusCode, headers, body });
  }

  onData(chunk: Buffer): void {
    this.#body!.push(chunk);
  }

  onComplete(): void {
    this.#cleanup();
    this.#body!.end();
  }

  onError(err: Error): void {
    this.#cleanup();
    const reason = this.#reason ?? err;
    if (this.#body !== null) this.#body.fail(reason);
    else this.#reject(reason);
  }
}

/** Refuses a socket connected to a private address (the address actually connected to, after DNS), unless the operator opened it. */
export function publicOnlyCheck(allow: AllowList | null): SocketCheck {
  return (socket) => {
    const ip = socket.remoteAddress ?? '';
    return isReachable(ip, allow) ? null : new BlockedAddressError(`refused to connect to ${ip}: not a public address`);
  };
}

/** The check with no operator allow-list. */
export const publicOnly: SocketCheck = publicOnlyCheck(null);

export class Outbound {
  readonly #clients: Record<AddressPolicy, Http1Client>;
  readonly #allow: AllowList | null;

  constructor(opts: OutboundOptions = {}) {
    const { maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES, resolve, allow, ...timeouts } = opts;
    this.#allow = allow ?? null;
    const t = { ...defaultTimeouts, ...timeouts };
    const clientWith = (check: SocketCheck | null, lookup: LookupFunction | undefined) =>
      new Http1Client({ timeouts: { ...t, keepAliveMs: KEEP_ALIVE_MS }, maxConnections: 256, maxResponseBytes, check, ...(lookup ? { lookup } : {}) });
    this.#clients = {
      // vendors the operator configured: resolved as node:net does, unless a resolver was given
      any: clientWith(null, resolve ? lookupWith(resolve, false) : undefined),
      'public-only': clientWith(publicOnlyCheck(this.#allow), lookupWith(resolve ?? systemResolver, true, this.#allow)),
    };
  }

  /** Settles once the response's headers arrive; its body then arrives on `body`. */
  request(req: OutboundRequest): Promise<OutboundResponse> {
    const signal = req.signal;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const policy = req.policy ?? 'any';
    if (policy === 'public-only') {
      // scheme, credentials, local names, and an address literal (never looked up): checked before connecting
      const refusal = refusalOfUrl(req.url, this.#allow);
      if (refusal !== null) return Promise.reject(new BlockedAddressError(`refused to connect to ${req.url.host}: ${refusal}`));
    }
    const client = this.#clients[policy];
    return new Promise<OutboundResponse>((resolve, reject) => new Exchange(client, resolve, reject, signal).start(req));
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.#clients).map((c) => c.close()));
  }
}
