// Resolves a bearer key to its tenant and workflow from memory. Every active key is
// loaded at boot; a key made on another replica is found with one lookup on first
// use; a revoked key leaves every replica's cache at once through a notice.
import type { Database } from '../db/database.ts';
import { ApiKey } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import type { KeyHasher } from '../security/secrets.ts';

export interface Principal {
  accountId: string;
  workflowId: string;
  keyId: string;
}

const REVOKED_CHANNEL = 'keys:revoked';
const NEGATIVE_TTL_MS = 5_000;

export class KeyCache {
  readonly #byHash = new Map<string, Principal>();
  readonly #unknown = new Map<string, number>();
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #hasher: KeyHasher;

  constructor(db: Database, hot: HotStore, hasher: KeyHasher) {
    this.#db = db;
    this.#hot = hot;
    this.#hasher = hasher;
  }

  async start(): Promise<void> {
    const rows = await this.#db.em().find(ApiKey, { revokedAt: null });
    for (const r of rows) this.#byHash.set(r.hash, { accountId: r.accountId, workflowId: r.workflowId, keyId: r.id });
    await this.#hot.subscribe(REVOKED_CHANNEL, (hash) => this.#forget(hash));
  }

  #forget(hash: string): void {
    this.#byHash.delete(hash);
  }

  /**
   * The principal of a key already known on this replica, without touching the database;
   * undefined when not known here. Only the keyed hash of the presented key is looked up
   * (about 2 µs): presented keys are not kept once the request is done.
   */
  cached(key: string): Principal | undefined {
    return this.#byHash.get(this.#hasher.hash(key));
  }

  remember(hash: string, p: Principal): void {
    this.#byHash.set(hash, p);
    this.#unknown.delete(hash);
  }

  async revoke(hash: string): Promise<void> {
    this.#forget(hash);
    await this.#hot.publish(REVOKED_CHANNEL, hash);
  }

  async resolve(key: string): Promise<Principal | null> {
    const hash = this.#hasher.hash(key);
    const hit = this.#byHash.get(hash);
    if (hit) return hit;
    const missedAt = this.#unknown.get(hash);
    if (missedAt !== undefined && Date.now() - missedAt < NEGATIVE_TTL_MS) return null;
    const row = await this.#db.em().findOne(ApiKey, { hash, revokedAt: null });
    if (!row) {
      if (this.#unknown.size > 10_000) this.#unknown.clear();
      this.#unknown.set(hash, Date.now());
      return null;
    }
    const p = { accountId: row.accountId, workflowId: row.workflowId, keyId: row.id };
    this.#byHash.set(hash, p);
    return p;
  }
}
