// The in-process hot store, for a single replica without Redis. Its idempotency records
// outlive a restart through a journal in the data folder (hot/idempotency-journal.ts).
import { EventEmitter } from 'node:events';
import { applyBudgetOp, type BudgetAnswer, type BudgetOp } from './budget.ts';
import { RateCounters } from './rate-window.ts';
import { deliver, idempotencyClaimKey, type HotStore, type IdempotencyRecord, type MessageHandler } from './store.ts';
import type { IdempotencyJournal } from './idempotency-journal.ts';

interface Entry {
  value: string;
  expiresAt: number;
}

export class MemoryHotStore implements HotStore {
  readonly kind = 'memory' as const;
  readonly #map = new Map<string, Entry>();
  readonly #bus = new EventEmitter();
  /** Money counters: never expire (the ledger is their record; they are loaded from it once). */
  readonly #budgets = new Map<string, Map<string, number>>();
  /** Rate counters (per minute; they forget minutes that no longer count). */
  readonly #rates = new RateCounters();
  readonly #sweep: NodeJS.Timeout;
  readonly #onError: (e: Error) => void;
  readonly #journal: IdempotencyJournal | null;

  /**
   * `onError` hears of a subscriber's handler failing. `journal`: where answered idempotency keys
   * are kept across restarts; those still within their retention are read back here, each with
   * its claim, so a retry after a restart replays (and a different body is still refused).
   */
  constructor(onError: (e: Error) => void = () => undefined, journal: IdempotencyJournal | null = null) {
    this.#onError = onError;
    this.#journal = journal;
    for (const e of journal?.load() ?? []) {
      this.#map.set(`idem:${e.id}`, { value: JSON.stringify(e.rec), expiresAt: e.expiresAt });
      this.#map.set(idempotencyClaimKey(e.id), { value: e.rec.fingerprint, expiresAt: e.expiresAt });
    }
    this.#bus.setMaxListeners(0);
    this.#sweep = setInterval(() => this.#evictExpired(), 60_000);
    this.#sweep.unref();
  }

  #evictExpired(): void {
    const now = Date.now();
    for (const [k, e] of this.#map) if (e.expiresAt <= now) this.#map.delete(k);
  }

  #read(key: string): string | null {
    const e = this.#map.get(key);
    if (!e) return null;
    if (e.expiresAt <= Date.now()) {
      this.#map.delete(key);
      return null;
    }
    return e.value;
  }

  async get(key: string): Promise<string | null> {
    return this.#read(key);
  }
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#map.set(key, { value, expiresAt: Date.now() + ttlMs });
  }
  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.#read(key) !== null) return false;
    this.#map.set(key, { value, expiresAt: Date.now() + ttlMs });
    return true;
  }
  async del(key: string): Promise<void> {
    this.#map.delete(key);
  }
  async count(key: string, ttlMs: number): Promise<number> {
    const now = Date.now();
    const e = this.#map.get(key);
    if (!e || e.expiresAt <= now) {
      this.#map.set(key, { value: '1', expiresAt: now + ttlMs });
      return 1;
    }
    const n = Number(e.value) + 1;
    e.value = String(n);
    return n;
  }
  async saveIdempotency(id: string, rec: IdempotencyRecord, ttlMs: number): Promise<void> {
    const expiresAt = Date.now() + ttlMs;
    this.#journal?.append({ id, expiresAt, rec }); // on disk before the answer leaves
    this.#map.set(`idem:${id}`, { value: JSON.stringify(rec), expiresAt });
  }
  async fetchIdempotency(id: string): Promise<IdempotencyRecord | null> {
    const v = this.#read(`idem:${id}`);
    return v ? (JSON.parse(v) as IdempotencyRecord) : null;
  }
  async budget(key: string, op: BudgetOp): Promise<BudgetAnswer> {
    return applyBudgetOp(this.#budgets, this.#rates, key, op);
  }
  async publish(channel: string, message: string): Promise<void> {
    this.#bus.emit(channel, message);
  }
  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    this.#bus.on(channel, (m: string) => deliver(handler, m, this.#onError));
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    this.#journal?.close();
    this.#bus.removeAllListeners();
  }
}
