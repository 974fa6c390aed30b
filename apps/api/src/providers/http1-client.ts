// An HTTP/1.1 client for vendor calls, used only by outbound.ts: keep-alive connections
// per origin, one request in flight per connection, each request written in one write,
// responses framed by Content-Length, chunked encoding or the connection's close. It is
// deliberately small: no redirects, no pipelining, no upgrade, no compression (the
// request never asks for one). Timeouts are swept by one timer per origin instead of
// one timer per request. Errors carry undici's codes, which the pipeline maps. A response
// body larger than the configured maximum ends the exchange (UND_ERR_RES_EXCEEDED_MAX_SIZE),
// and an idle connection is kept no longer than the server's `Keep-Alive: timeout=` allows.
//
// Its parts, in http1/: one connection and the answer it reads (connection.ts), the
// connections to one origin (origin.ts), the request's text and an answer's framing
// (wire.ts), and what it is given and answers with (types.ts).
import type { LookupFunction } from 'node:net';
import type { Exchange } from './http1/connection.ts';
import { Origin } from './http1/origin.ts';
import type { ClientRequest, ClientTimeouts, ResponseHandler, SocketCheck } from './http1/types.ts';
import { requestText } from './http1/wire.ts';

export type { Exchange } from './http1/connection.ts';
export { UpstreamError, type ClientRequest, type ClientTimeouts, type LookupFunction, type ResponseHandler, type SocketCheck } from './http1/types.ts';
export { KEEP_ALIVE_MARGIN_MS, keepAliveFor } from './http1/wire.ts';

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
