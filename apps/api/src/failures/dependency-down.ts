// Tells a dependency outage (the database or Redis unreachable) from a bug, by error
// codes and classes, never by message text: an outage answers the catalogued 503
// `unavailable` on every route, and /readyz names the dependency without its error.
import { ConnectionException } from '@mikro-orm/core';

/** Socket and DNS failures that mean the other side is not there. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', 'ECONNABORTED']);
/** PostgreSQL: connection exceptions (class 08) and the server shutting down or starting. */
const PG_CODES = /^(08[0-9A-Z]{3}|57P0[1-3])$/;
/** Error classes of the database pool and the Redis client that mean no connection. */
const CLASS_NAMES = new Set(['KnexTimeoutError', 'ConnectionException', 'ClientClosedError', 'ConnectionTimeoutError', 'SocketClosedUnexpectedlyError', 'ReconnectStrategyError', 'ClientOfflineError']);

/** True when `err` (or what caused it) says a dependency could not be reached. */
export function isDependencyDown(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_CODES.test(code))) return true;
    if (typeof name === 'string' && CLASS_NAMES.has(name)) return true;
    // node-redis's error classes keep Error's `name`: they are told by their class
    if (CLASS_NAMES.has((e as { constructor?: { name?: string } }).constructor?.name ?? '')) return true;
    e = (e as { cause?: unknown }).cause ?? (e as { original?: unknown }).original;
  }
  return false;
}
