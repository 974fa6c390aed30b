// The semantic cache's entries in memory: the vector index (semantic/), the answer each
// entry serves, and the bounds a scope and a tenant are kept to (the oldest goes first).
import type { CachedAnswer } from '../answer-cache.ts';
import { defaultThresholdFor, effectiveThreshold, SemanticIndex } from '../semantic/index.ts';

/** Entries a tenant keeps per scope; the least recently added is dropped beyond it. */
const MAX_PER_SCOPE = 20_000;

interface Stored {
  accountId: string;
  answer: CachedAnswer;
  question: string;
  expiresAt: number;
}

/** A live entry found for a question: its id, how similar, and what it serves. */
export interface Found {
  id: string;
  similarity: number;
  question: string;
  answer: CachedAnswer;
}

export class SemanticEntries {
  #index: SemanticIndex | null = null;
  readonly #answers = new Map<string, Map<string, Stored>>();
  /** Per tenant, its entries' ids (to their index key), oldest first: the tenant's bound is kept on it. */
  readonly #byTenant = new Map<string, Map<string, string>>();
  readonly #maxPerTenant: number;

  constructor(maxPerTenant: number) {
    this.#maxPerTenant = maxPerTenant;
  }

  /** Makes the index once the embedder is known (its name sets the default threshold). */
  open(embedderName: string): void {
    this.#index = new SemanticIndex({ threshold: defaultThresholdFor(embedderName), maxEntriesPerKey: MAX_PER_SCOPE + 1 });
  }

  get isOpen(): boolean {
    return this.#index !== null;
  }

  /** How many entries a tenant holds. */
  count(accountId: string): number {
    return this.#byTenant.get(accountId)?.size ?? 0;
  }

  /**
   * The most similar live entry under `key` that the guards admit, at the index's threshold
   * or the raised one asked for; an expired one found is dropped and is a miss.
   */
  find(key: string, vector: Float32Array, question: string, threshold: number | undefined): Found | null {
    if (!this.#index) return null;
    const found = this.#index.lookup(key, vector, question, effectiveThreshold(this.#index.threshold, threshold));
    if (!found) return null;
    const stored = this.#answers.get(key)?.get(found.id);
    if (!stored || stored.expiresAt <= Date.now()) {
      this.forget(key, found.id);
      return null;
    }
    return { id: found.id, similarity: found.similarity, question: stored.question, answer: stored.answer };
  }

  add(accountId: string, key: string, id: string, vector: Float32Array, question: string, answer: CachedAnswer, expiresAt: number): void {
    if (!this.#index || expiresAt <= Date.now()) return;
    let answers = this.#answers.get(key);
    if (!answers) this.#answers.set(key, (answers = new Map()));
    if (!answers.has(id) && answers.size >= MAX_PER_SCOPE) {
      const oldest = answers.keys().next().value!;
      this.forget(key, oldest);
    }
    this.#index.add(key, { id, vector, text: question });
    answers.set(id, { accountId, answer, question, expiresAt });
    let mine = this.#byTenant.get(accountId);
    if (!mine) this.#byTenant.set(accountId, (mine = new Map()));
    mine.delete(id);
    mine.set(id, key);
    if (mine.size > this.#maxPerTenant) {
      const [oldest, oldestKey] = mine.entries().next().value!;
      this.forget(oldestKey, oldest);
    }
  }

  forget(key: string, id: string): void {
    this.#index?.remove(key, id);
    const answers = this.#answers.get(key);
    const stored = answers?.get(id);
    if (stored) {
      const mine = this.#byTenant.get(stored.accountId);
      mine?.delete(id);
      if (mine?.size === 0) this.#byTenant.delete(stored.accountId);
    }
    answers?.delete(id);
    if (answers?.size === 0) this.#answers.delete(key);
  }

  /** Drops every entry expired at `now`. */
  dropExpired(now: number): void {
    for (const [key, answers] of this.#answers) for (const [id, a] of answers) if (a.expiresAt <= now) this.forget(key, id);
  }
}
