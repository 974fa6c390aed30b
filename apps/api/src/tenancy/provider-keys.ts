// A tenant's own provider keys, sealed at rest and bound to tenant and row. Sealed
// rows are held in memory (loaded at boot, kept in step across replicas by a
// notice), so a completion never reads the database to find its key.
import type { Database } from '../db/database.ts';
import { ProviderKey } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';
import type { Envelope, SealedSecret } from '../security/envelope.ts';
import { newId } from '../security/secrets.ts';

const CHANGED_CHANNEL = 'provider-keys:changed';

interface Held {
  id: string;
  sealed: SealedSecret;
  updatedAt: Date;
}

export class ProviderKeys {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #envelope: Envelope;
  /** accountId → provider → sealed row */
  readonly #held = new Map<string, Map<string, Held>>();
  /** Overlapping reloads of one tenant's keys: an older read never replaces a newer one (a removed key must not come back). */
  readonly #reads = new Map<string, NewestRead>();

  constructor(db: Database, hot: HotStore, envelope: Envelope) {
    this.#db = db;
    this.#hot = hot;
    this.#envelope = envelope;
  }

  async start(): Promise<void> {
    for (const r of await this.#db.em().find(ProviderKey, {})) this.#hold(r);
    await this.#hot.subscribe(CHANGED_CHANNEL, (accountId) => this.#reload(accountId));
  }

  #hold(r: ProviderKey): void {
    let m = this.#held.get(r.accountId);
    if (!m) this.#held.set(r.accountId, (m = new Map()));
    m.set(r.provider, { id: r.id, sealed: r.sealed as unknown as SealedSecret, updatedAt: r.updatedAt });
  }

  async #reload(accountId: string): Promise<void> {
    let reads = this.#reads.get(accountId);
    if (!reads) this.#reads.set(accountId, (reads = new NewestRead()));
    const rows = await reads.read(() => this.#db.em().find(ProviderKey, { accountId }));
    if (rows === undefined) return; // a reload begun later is in memory already
    this.#held.delete(accountId);
    for (const r of rows) this.#hold(r);
  }

  list(accountId: string): { provider: string; key_set: true; updated_at: string }[] {
    const m = this.#held.get(accountId);
    if (!m) return [];
    return [...m.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([provider, h]) => ({ provider, key_set: true, updated_at: h.updatedAt.toISOString() }));
  }

  async put(accountId: string, provider: string, key: string): Promise<void> {
    const em = this.#db.em();
    const existing = await em.findOne(ProviderKey, { accountId, provider });
    const id = existing?.id ?? newId('pk');
    const sealed = this.#envelope.encrypt(key, { tenantId: accountId, rowId: id }) as unknown as Record<string, unknown>;
    if (existing) existing.sealed = sealed;
    else em.create(ProviderKey, { id, accountId, provider, sealed });
    await em.flush();
    await this.#reload(accountId);
    await this.#hot.publish(CHANGED_CHANNEL, accountId);
  }

  async remove(accountId: string, provider: string): Promise<boolean> {
    const em = this.#db.em();
    const n = await em.nativeDelete(ProviderKey, { accountId, provider });
    await this.#reload(accountId);
    await this.#hot.publish(CHANGED_CHANNEL, accountId);
    return n > 0;
  }

  has(accountId: string, provider: string): boolean {
    return this.#held.get(accountId)?.has(provider) ?? false;
  }

  /** The tenant's plaintext key for a provider, or null; never logged, never returned. */
  reveal(accountId: string, provider: string): string | null {
    const h = this.#held.get(accountId)?.get(provider);
    return h ? this.#envelope.decrypt(h.sealed, { tenantId: accountId, rowId: h.id }) : null;
  }
}
