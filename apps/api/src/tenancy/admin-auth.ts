// The platform admin's credential: ADMIN_KEY from the environment, else a key
// generated on first start, printed once and stored only as a hash.
import type { Database } from '../db/database.ts';
import { AdminKey } from '../db/entities.ts';
import { constantTimeEqual, newAdminKey, newId, type KeyHasher } from '../security/secrets.ts';

export class AdminAuth {
  #hashes: string[] = [];
  readonly #hasher: KeyHasher;

  constructor(hasher: KeyHasher) {
    this.#hasher = hasher;
  }

  async start(opts: { fromEnv?: string; db: Database; announce: (key: string) => void }): Promise<void> {
    if (opts.fromEnv) {
      this.#hashes = [this.#hasher.hash(opts.fromEnv)];
      return;
    }
    const em = opts.db.em();
    const rows = await em.find(AdminKey, {});
    if (rows.length === 0) {
      const key = newAdminKey();
      em.create(AdminKey, { id: newId('adm'), hash: this.#hasher.hash(key) });
      await em.flush();
      opts.announce(key);
      this.#hashes = [this.#hasher.hash(key)];
      return;
    }
    this.#hashes = rows.map((r) => r.hash);
  }

  check(presented: string): boolean {
    const h = this.#hasher.hash(presented);
    let ok = false;
    for (const stored of this.#hashes) ok = constantTimeEqual(h, stored) || ok;
    return ok;
  }
}
