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

export interface HotStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets only when absent; true when this call set it (an atomic claim). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  saveIdempotency(id: string, rec: IdempotencyRecord, ttlMs: number): Promise<void>;
  fetchIdempotency(id: string): Promise<IdempotencyRecord | null>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
