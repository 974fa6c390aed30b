// Dashboard sessions (design §7): a login with email + tenant key makes a random
// session id, handed to the browser in a cookie; the hot store keeps only its
// SHA-256 digest, so a dump of Redis cannot be replayed as a cookie.
import { hash as digestOf, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { Account, ApiKey } from '../db/entities.ts';
import { ApiError } from '../errors.ts';
import type { HotStore } from '../hot/store.ts';
import { constantTimeEqual } from '../security/secrets.ts';
import type { KeyCache, Principal } from './key-cache.ts';

const PREFIX = 'session:';
/** Stands in for a missing account or key so a wrong email and a wrong key take the same path. */
const NOBODY = 'acct_nobody-matches-this';

/** The hot-store key a session id lives under: its digest, never the id itself. */
export function sessionKey(id: string): string {
  return PREFIX + digestOf('sha256', id, 'base64url');
}

export class Sessions {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #keys: KeyCache;
  readonly #ttlMs: number;

  constructor(opts: { db: Database; hot: HotStore; keys: KeyCache; ttlMs: number }) {
    this.#db = opts.db;
    this.#hot = opts.hot;
    this.#keys = opts.keys;
    this.#ttlMs = opts.ttlMs;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /**
   * The principal an email and tenant key name together; `invalid_login` otherwise, the same
   * answer and the same work (key hash, account lookup, one constant-time compare) whichever was wrong.
   */
  async verify(email: string, apiKey: string): Promise<Principal> {
    const [principal, account] = await Promise.all([
      this.#keys.resolve(apiKey),
      this.#db.em().findOne(Account, { email: email.trim().toLowerCase() }),
    ]);
    const matches = constantTimeEqual(principal?.accountId ?? NOBODY, account?.id ?? `${NOBODY}!`);
    if (!matches || !principal) throw new ApiError('invalid_login');
    return principal;
  }

  /** A fresh session for the principal; returns the id to put in the cookie. */
  async create(p: Principal): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.#hot.set(sessionKey(id), JSON.stringify({ accountId: p.accountId, workflowId: p.workflowId, keyId: p.keyId }), this.#ttlMs);
    return id;
  }

  /**
   * The principal of a live session whose key is still live: revoking the key a session was
   * opened with ends the session too (one primary-key lookup; dashboard traffic only).
   */
  async resolve(id: string): Promise<Principal | null> {
    const raw = await this.#hot.get(sessionKey(id));
    if (raw === null) return null;
    const p = JSON.parse(raw) as Principal;
    if ((await this.#db.em().count(ApiKey, { id: p.keyId, revokedAt: null })) === 0) {
      await this.#hot.del(sessionKey(id));
      return null;
    }
    return p;
  }

  async destroy(id: string): Promise<void> {
    await this.#hot.del(sessionKey(id));
  }
}
