// The listening server: node:http with the data plane's hot routes read straight off the
// socket. A connection's requests are parsed here while each is a plain, well-formed
// `POST /v1/chat/completions` or `POST /v1/responses` (HTTP/1.1, one Content-Length, JSON, no Expect, Upgrade
// or Transfer-Encoding, no repeated header) and answered through FastResponse. The
// first request that is anything else hands the connection, from that request's first
// byte, to node:http and Fastify for good, so their parser and routes stay the
// reference for every other case, malformed ones included. The key is checked once the
// head is read; deadlines are absolute and the client's FIN is honoured, as node:http does
// (proven by test/fast-path-differential.test.ts). See docs/decisions.md ("Hot path").
//
// Its parts, in socket/: a connection on the hot route (connection.ts), the answer written
// to the socket (response.ts), the request head's parsing (head.ts), and the handler's part
// (types.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { FastConnection, type ServerDeps } from './socket/connection.ts';
import type { FastHandler } from './socket/types.ts';

export { REFUSED_BODY_READ } from './socket/connection.ts';
export { HOT_PATHS, type HotPath } from './socket/head.ts';
export { FastResponse } from './socket/response.ts';
export type { FastHandler, FastRequest } from './socket/types.ts';

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
