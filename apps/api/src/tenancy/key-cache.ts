// Resolves a bearer key to its tenant and workflow from memory. Every active key is
// loaded at boot; a key made on another replica is found with one lookup on first
// use; a revoked key leaves every replica's cache at once through a notice.
import { hash as digestOf } from 'node:crypto';
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

/** A key already seen here, under its plain digest (see `cached`). */
interface Seen {
  hash: string;
  principal: Principal;
}

export class KeyCache {
  readonly #byHash = new Map<string, Principal>();
  /** Keys presented here, by plain SHA-256; only keys known to be live, so never more than #byHash. */
  readonly #seen = new Map<string, Seen>();
  /** Stored hash → its #seen digest, so a revocation (which names the stored hash) forgets both. */
  readonly #digestByHash = new Map<string, string>();
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
    const digest = this.#digestByHash.get(hash);
    if (digest !== undefined) {
      this.#seen.delete(digest);
      this.#digestByHash.delete(hash);
    }
  }

  #see(digest: string, hash: string, principal: Principal): void {
    this.#seen.set(digest, { hash, principal });
    this.#digestByHash.set(hash, digest);
  }

  /**
   * The principal of a key already known on this replica, without touching the database;
   * undefined when not known here. A key seen before is found by its plain SHA-256, one
   * native call; a key's first use here pays the keyed hash the database stores. Presented
   * keys themselves are not kept once the request is done: a key is 32 random bytes, so its
   * digest cannot be turned back into it.
   */
  cached(key: string): Principal | undefined {
    return this.#known(key).principal;
  }

  /** What this replica knows of a key; the keyed hash is computed only when the digest is not enough. */
  #known(key: string): { digest: string; hash: string; principal: Principal | undefined } {
    const digest = digestOf('sha256', key, 'base64url');
    const seen = this.#seen.get(digest);
    if (seen !== undefined) return { digest, hash: seen.hash, principal: seen.principal };
    const hash = this.#hasher.hash(key);
    const principal = this.#byHash.get(hash);
    if (principal !== undefined) this.#see(digest, hash, principal);
    return { digest, hash, principal };
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
    const { digest, hash, principal } = this.#known(key);
    if (principal) return principal;
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
    this.#see(digest, hash, p);
    return p;
  }
}
