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
    await this.#hot.subscribe(CHANGED_CHANNEL, () => void this.reload());
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

  get(model: string): ModelProfile | undefined {
    return this.#models.get(model);
  }

  all(): ModelProfile[] {
    return [...this.#models.values()];
  }
}
