// The exact and plan caches' store: complete, successful answers under tenant-namespaced keys
// in the hot store (Redis: shared by every replica), and the plan cache's pending and served
// runs. Which key a call reads and when an answer may be kept is the cache stage's business
// (pipeline/cache.ts).
import type { HotStore } from '../hot/store.ts';

export interface CachedAnswer {
  /** The OpenAI chat.completion JSON text, without an optimizer block. */
  text: string;
  model: string;
  provider: string;
  /** What the answer cost when it was made, in micro-dollars (the saving of a hit). */
  baselineMicros: number;
  promptTokens: number;
  completionTokens: number;
}

export class AnswerCache {
  readonly #hot: HotStore;

  constructor(hot: HotStore) {
    this.#hot = hot;
  }

  async get(key: string): Promise<CachedAnswer | null> {
    const v = await this.#hot.get(key);
    return v ? (JSON.parse(v) as CachedAnswer) : null;
  }

  async put(key: string, answer: CachedAnswer, ttlMs: number): Promise<void> {
    await this.#hot.set(key, JSON.stringify(answer), ttlMs);
  }

  async drop(key: string): Promise<void> {
    await this.#hot.del(key);
  }

  /** A run's opening answer, kept until the run reports how it ended. */
  async holdPlan(accountId: string, runId: string, key: string, answer: CachedAnswer): Promise<void> {
    await this.#hot.set(`cache:plan-pending:${accountId}:${runId}`, JSON.stringify({ key, answer }), 24 * 3600_000);
  }

  /** The run completed without a hard failure: its opening answer becomes a plan others can reuse. */
  async promotePlan(accountId: string, runId: string, ttlMs: number): Promise<boolean> {
    const v = await this.#hot.get(`cache:plan-pending:${accountId}:${runId}`);
    if (!v) return false;
    const { key, answer } = JSON.parse(v) as { key: string; answer: CachedAnswer };
    await this.#hot.set(key, JSON.stringify(answer), ttlMs);
    await this.#hot.del(`cache:plan-pending:${accountId}:${runId}`);
    return true;
  }

  /** A run that failed after starting from a cached plan invalidates that plan. */
  async notePlanServed(accountId: string, runId: string, key: string): Promise<void> {
    await this.#hot.set(`cache:plan-served:${accountId}:${runId}`, key, 24 * 3600_000);
  }

  async invalidatePlanOf(accountId: string, runId: string): Promise<boolean> {
    const key = await this.#hot.get(`cache:plan-served:${accountId}:${runId}`);
    await this.#hot.del(`cache:plan-pending:${accountId}:${runId}`);
    if (!key) return false;
    await this.#hot.del(key);
    return true;
  }
}
