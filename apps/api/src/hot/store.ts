// Hot state shared by every replica: idempotency records, cache entries, counters
// and change notices. Redis when REDIS_URL is set, an in-process equivalent
// otherwise; callers see one interface.

/** An idempotency record: what the first attempt answered, replayed on a retry. */
export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status: number;
  headers: string;
  body: string;
}

/** The claim an Idempotency-Key's first request holds (in flight, then answered: pipeline/idempotency.ts). */
export const idempotencyClaimKey = (id: string): string => `idem-claim:${id}`;

/** What a subscriber runs per message; a returned promise is awaited for its failure only. */
export type MessageHandler = (message: string) => void | Promise<unknown>;

/**
 * Runs a handler for one message so that its failure goes to `onError`: a reload that hits a
 * database blip (or a database already closed at shutdown) must not become an unhandled
 * rejection, which ends a Node process.
 */
export function deliver(handler: MessageHandler, message: string, onError: (err: Error) => void): void {
  const fail = (err: unknown) => onError(err instanceof Error ? err : new Error(String(err)));
  try {
    const r = handler(message);
    if (r instanceof Promise) r.catch(fail);
  } catch (err) {
    fail(err);
  }
}

import type { BudgetAnswer, BudgetOp } from './budget.ts';

export interface HotStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets only when absent; true when this call set it (an atomic claim). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  saveIdempotency(id: string, rec: IdempotencyRecord, ttlMs: number): Promise<void>;
  fetchIdempotency(id: string): Promise<IdempotencyRecord | null>;
  /** Adds one to a counter and answers its new count; the counter is dropped `ttlMs` after its first count (limits/door-throttle.ts reads it with `get` as the previous window). */
  count(key: string, ttlMs: number): Promise<number>;
  /** One atomic step on a tenant's money counters (billing/hot-budget.ts). */
  budget(key: string, op: BudgetOp): Promise<BudgetAnswer>;
  publish(channel: string, message: string): Promise<void>;
  /** A handler's failure (thrown, or its promise rejected) is reported to the store's error callback, never left unhandled. */
  subscribe(channel: string, handler: MessageHandler): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
