// The one module that talks to the network. Keep-alive pools per origin on
// undici's dispatcher API (no fetch on the hot path), separate connect, first-byte
// and idle timeouts (from config), and an address check on the socket actually connected to.
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

export type OutboundResponse = Dispatcher.ResponseData;

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

  request(req: OutboundRequest): Promise<OutboundResponse> {
    const pool = this.#pool(req.url.origin, req.policy ?? 'any');
    return pool.request({
      path: req.url.pathname + req.url.search,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
    this.#pools.clear();
  }
}
