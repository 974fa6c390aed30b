// The in-process hot store, for a single replica without Redis.
import { EventEmitter } from 'node:events';
import { applyBudgetOp, type BudgetAnswer, type BudgetOp } from '../billing/hot-budget.ts';
import { RateCounters } from '../limits/rate-window.ts';
import { deliver, type HotStore, type IdempotencyRecord, type MessageHandler } from './store.ts';

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

  /** `onError` hears of a subscriber's handler failing. */
  constructor(onError: (e: Error) => void = () => undefined) {
    this.#onError = onError;
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
  async saveIdempotency(id: string, rec: IdempotencyRecord, ttlMs: number): Promise<void> {
    await this.set(`idem:${id}`, JSON.stringify(rec), ttlMs);
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
    this.#bus.removeAllListeners();
  }
}
