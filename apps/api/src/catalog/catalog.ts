// The live model catalog: the source of record for pricing (and, later, routing
// and failover). Held in memory, seeded on an empty database, reloaded on every
// replica when a change notice arrives.
//
// Beside the models it holds the admin's pricing for names it does not list (no migration:
// rows of the same table, told apart by their profile): aliases (a dated snapshot such as
// `gpt-4o-mini-2024-07-18` priced as `gpt-4o-mini`; row profile `{ alias_of }`), and the
// unknown-model price (row `*`, profile `{ unknown_model_price }`), which overrides the
// UNKNOWN_MODEL_PRICE setting. A row that is neither, nor a valid profile, is skipped.
import { modelProfileSchema, unknownModelPriceSchema, type ModelProfile, type UnknownModelPrice } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { CatalogModel } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';
import { seedCatalog } from './seed.ts';

const CHANGED_CHANNEL = 'catalog:changed';
/** The row that holds the unknown-model price: `*` is no model name (providers/model-id.ts). */
const POLICY_ROW = '*';

/** UNKNOWN_MODEL_PRICE as a policy: `off` is none. */
export function parseUnknownModelPrice(setting: string): UnknownModelPrice | null {
  if (setting === 'off' || setting === '') return null;
  const [input, output] = setting.split(',').map(Number);
  return unknownModelPriceSchema.parse({ input_per_mtok: input, output_per_mtok: output });
}

/** A model's catalog strength over every kind of work it lists (0 with none): which of two models is the stronger where no kind is asked. */
export function meanStrength(p: ModelProfile): number {
  const v = Object.values(p.strengths);
  return v.length ? v.reduce((a, b) => a + (b ?? 0), 0) / v.length : 0;
}

/** A profile for a model the catalog does not list, priced by the policy: no failover, no strengths, never routed to. */
export function profileAtPolicy(model: string, provider: string, price: UnknownModelPrice, output: 'text' | 'embedding'): ModelProfile {
  return {
    model,
    provider,
    input_per_mtok: price.input_per_mtok,
    output_per_mtok: price.output_per_mtok,
    cached_input_per_mtok: price.input_per_mtok,
    cache_write_multiplier: 1,
    input_modalities: ['text', 'image'],
    output_modalities: [output],
    tools: 'full',
    structured_outputs: true,
    reasoning_efforts: [],
    context_length: 10_000_000,
    max_output_tokens: price.max_output_tokens,
    search_only: false,
    moderation_only: false,
    strengths: {},
    disabled: false,
    failover: [],
  };
}

export class Catalog {
  readonly #db: Database;
  readonly #hot: HotStore;
  #models = new Map<string, ModelProfile>();
  #aliases = new Map<string, string>();
  #unknownPrice: UnknownModelPrice | null = null;
  readonly #defaultUnknownPrice: UnknownModelPrice | null;
  /** Overlapping reloads: an older read never replaces a newer one. */
  readonly #reads = new NewestRead();

  constructor(db: Database, hot: HotStore, defaultUnknownPrice: UnknownModelPrice | null = null) {
    this.#db = db;
    this.#hot = hot;
    this.#defaultUnknownPrice = defaultUnknownPrice;
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
    const rows = await this.#reads.read(() => this.#db.em().find(CatalogModel, {}, { orderBy: { model: 'asc' } }));
    if (rows === undefined) return; // a reload begun later is in memory already
    const next = new Map<string, ModelProfile>();
    const aliases = new Map<string, string>();
    let unknownPrice: UnknownModelPrice | null = null;
    for (const r of rows) {
      if (r.model === POLICY_ROW) {
        const policy = unknownModelPriceSchema.safeParse(r.profile.unknown_model_price);
        if (policy.success) unknownPrice = policy.data;
        continue;
      }
      if (typeof r.profile.alias_of === 'string') {
        aliases.set(r.model, r.profile.alias_of);
        continue;
      }
      const parsed = modelProfileSchema.safeParse({ ...r.profile, model: r.model, provider: r.provider, disabled: r.disabled });
      if (parsed.success) next.set(r.model, parsed.data);
    }
    this.#models = next;
    this.#aliases = aliases;
    this.#unknownPrice = unknownPrice;
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

  /** The catalog model an alias is priced as (when that model is still listed). */
  aliasOf(name: string): ModelProfile | undefined {
    const target = this.#aliases.get(name);
    return target === undefined ? undefined : this.#models.get(target);
  }

  aliases(): { alias: string; model: string }[] {
    return [...this.#aliases].map(([alias, model]) => ({ alias, model })).sort((a, b) => a.alias.localeCompare(b.alias));
  }

  /** Creates or replaces an alias; the caller checked that `model` is listed and `alias` is not. */
  async putAlias(alias: string, target: ModelProfile): Promise<void> {
    await this.#putRow(alias, target.provider, { alias_of: target.model });
  }

  async removeAlias(alias: string): Promise<boolean> {
    if (!this.#aliases.has(alias)) return false;
    const n = await this.#db.em().nativeDelete(CatalogModel, { model: alias });
    if (n) await this.changed();
    return n > 0;
  }

  /** The admin's price for unlisted models, else the UNKNOWN_MODEL_PRICE setting's; null: none (own keys only). */
  unknownModelPrice(): UnknownModelPrice | null {
    return this.#unknownPrice ?? this.#defaultUnknownPrice;
  }

  /** Sets the admin's unknown-model price, or (null) clears it back to the setting's. */
  async setUnknownModelPrice(price: UnknownModelPrice | null): Promise<void> {
    if (price === null) {
      await this.#db.em().nativeDelete(CatalogModel, { model: POLICY_ROW });
      await this.changed();
      return;
    }
    await this.#putRow(POLICY_ROW, POLICY_ROW, { unknown_model_price: price });
  }

  async #putRow(model: string, provider: string, profile: Record<string, unknown>): Promise<void> {
    const em = this.#db.em();
    const row = await em.findOne(CatalogModel, { model });
    if (row) Object.assign(row, { provider, profile, disabled: false });
    else em.create(CatalogModel, { model, provider, profile, disabled: false });
    await em.flush();
    await this.changed();
  }

  /**
   * The listed models closest to a name the catalog does not know, for the refusal: the
   * models whose names share the longest start with it, then the smallest edit distance.
   */
  closest(name: string, limit = 3): string[] {
    const bare = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
    const scored = [...this.#models.values()]
      .filter((p) => !p.disabled)
      .map((p) => ({ model: p.model, prefix: commonPrefix(bare, p.model.toLowerCase()), distance: editDistance(bare, p.model.toLowerCase()) }));
    scored.sort((a, b) => b.prefix - a.prefix || a.distance - b.distance || a.model.localeCompare(b.model));
    return scored.slice(0, limit).map((s) => s.model);
  }

  all(): ModelProfile[] {
    return [...this.#models.values()];
  }
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Levenshtein distance, on names of at most a few hundred characters (model-id.ts caps them at 256). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
