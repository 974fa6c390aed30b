// The live model catalog: the source of record for pricing (and, later, routing
// and failover). Held in memory, seeded on an empty database, reloaded on every
// replica when a change notice arrives.
import { modelProfileSchema, type ModelProfile } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { CatalogModel } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import { seedCatalog } from './seed.ts';

const CHANGED_CHANNEL = 'catalog:changed';

export class Catalog {
  readonly #db: Database;
  readonly #hot: HotStore;
  #models = new Map<string, ModelProfile>();

  constructor(db: Database, hot: HotStore) {
    this.#db = db;
    this.#hot = hot;
  }

  async start(): Promise<void> {
    const em = this.#db.em();
    if ((await em.count(CatalogModel, {})) === 0) {
      for (const m of seedCatalog) {
        em.create(CatalogModel, { model: m.model, provider: m.provider, profile: m as unknown as Record<string, unknown>, disabled: m.disabled });
      }
      await em.flush().catch(async (e: unknown) => {
        // another replica seeded first
        if ((await this.#db.em().count(CatalogModel, {})) === 0) throw e;
      });
    }
    await this.reload();
    await this.#hot.subscribe(CHANGED_CHANNEL, () => this.reload());
  }

  async reload(): Promise<void> {
    const rows = await this.#db.em().find(CatalogModel, {}, { orderBy: { model: 'asc' } });
    const next = new Map<string, ModelProfile>();
    for (const r of rows) {
      const parsed = modelProfileSchema.safeParse({ ...r.profile, model: r.model, provider: r.provider, disabled: r.disabled });
      if (parsed.success) next.set(r.model, parsed.data);
    }
    this.#models = next;
  }

  /** Tells every replica (this one included) to reload after a write. */
  async changed(): Promise<void> {
    await this.reload();
    await this.#hot.publish(CHANGED_CHANNEL, String(Date.now()));
  }

  /** Creates or replaces one model; the profile is validated by the caller. */
  async put(profile: ModelProfile): Promise<ModelProfile> {
    const em = this.#db.em();
    const row = await em.findOne(CatalogModel, { model: profile.model });
    const data = { provider: profile.provider, profile: profile as unknown as Record<string, unknown>, disabled: profile.disabled };
    if (row) Object.assign(row, data);
    else em.create(CatalogModel, { model: profile.model, ...data });
    await em.flush();
    await this.changed();
    return this.get(profile.model)!;
  }

  async remove(model: string): Promise<boolean> {
    const n = await this.#db.em().nativeDelete(CatalogModel, { model });
    if (n) await this.changed();
    return n > 0;
  }

  /** Takes a model out of routing (or back in) without touching its row or evidence. */
  async setDisabled(model: string, disabled: boolean): Promise<ModelProfile | undefined> {
    const em = this.#db.em();
    const row = await em.findOne(CatalogModel, { model });
    if (!row) return undefined;
    row.disabled = disabled;
    row.profile = { ...row.profile, disabled };
    await em.flush();
    await this.changed();
    return this.get(model);
  }

  get(model: string): ModelProfile | undefined {
    return this.#models.get(model);
  }

  all(): ModelProfile[] {
    return [...this.#models.values()];
  }
}
