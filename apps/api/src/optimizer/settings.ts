// Per-tenant routing settings: held in memory (hot path), written through to the
// database and reloaded on every replica by a notice. Stored is what the tenant set; a
// write merges into it (settings/merge.ts: a field left out keeps its value, null returns it
// to its default). The hot path reads the fields set (`get`) and applies its defaults where
// it uses them; GET answers `effective`, the same defaults filled in.
import { routingSettingsWrite, type RoutingSettingsPatch, type RoutingSettingsView, type RoutingSettingsWrite } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { RoutingSetting } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';
import { mergeSettings, mergeWrite, type Stored } from '../settings/merge.ts';
import { DEFAULT_BUDGET_SHARE } from './exploration.ts';

const CHANGED = 'routing-settings:changed';
export const DEFAULT_FLOOR = 0.95;

/**
 * What a field left unset means, as the routing code reads it (routing-options.ts,
 * plan-routed.ts, cache-stage.ts, DEFAULT_BUDGET_SHARE in exploration.ts): kept in step with
 * those by the routing-settings tests. A null depends on the call (see routingSettingsView).
 */
export const ROUTING_DEFAULTS: RoutingSettingsView = {
  mode: 'auto',
  allowed_providers: null,
  tiebreak: 'cost',
  ladders: {},
  band: 0,
  learning_mode: 'serve',
  advanced_search: true,
  failover: 'same_model',
  baseline_model: null,
  judge_model: null,
  quality_floor: DEFAULT_FLOOR,
  exploration: { step_share: DEFAULT_BUDGET_SHARE, step_budget_usd: null, daily_budget_usd: 200 },
  cache: { exact: false, semantic: false, ttl_seconds: 3600, semantic_threshold: null, semantic_error_bound: null },
};

/**
 * Settings stored under the learning modes' former names read as today's: `explore` (side probes,
 * then the default) as `serve`, the default now; `exploit` (nothing new probed) as `off`.
 */
function withCurrentNames(stored: RoutingSettingsWrite): RoutingSettingsWrite {
  const mode = (stored as { learning_mode?: string }).learning_mode;
  if (mode === 'explore') return { ...stored, learning_mode: 'serve' };
  if (mode === 'exploit') return { ...stored, learning_mode: 'off' };
  return stored;
}

export class RoutingSettings {
  readonly #db: Database;
  readonly #hot: HotStore;
  #byAccount = new Map<string, RoutingSettingsWrite>();
  /** Overlapping reloads and writes: an older read never replaces a newer one. */
  readonly #reads = new NewestRead();

  constructor(db: Database, hot: HotStore) {
    this.#db = db;
    this.#hot = hot;
  }

  async start(): Promise<void> {
    await this.#reload();
    await this.#hot.subscribe(CHANGED, () => this.#reload());
  }

  async #reload(): Promise<void> {
    const rows = await this.#reads.read(() => this.#db.em().find(RoutingSetting, {}));
    if (rows === undefined) return; // a reload begun later is in memory already
    this.#byAccount = new Map(rows.map((r) => [r.accountId, withCurrentNames(r.settings as RoutingSettingsWrite)]));
  }

  /** The fields the tenant set (the routing code applies its defaults to the rest). */
  get(accountId: string): RoutingSettingsWrite {
    return this.#byAccount.get(accountId) ?? {};
  }

  /** The tenant's settings with every default filled in (what GET answers). */
  effective(accountId: string): RoutingSettingsView {
    return mergeSettings(ROUTING_DEFAULTS as unknown as Stored, this.get(accountId) as Stored) as unknown as RoutingSettingsView;
  }

  floor(accountId: string): number {
    return this.get(accountId).quality_floor ?? DEFAULT_FLOOR;
  }

  /** Merges `patch` into the tenant's settings (fields left out keep their values; null: the default); the effective settings. */
  async put(accountId: string, patch: RoutingSettingsPatch): Promise<RoutingSettingsView> {
    const { stored } = mergeWrite(routingSettingsWrite, this.get(accountId) as Stored, patch);
    await this.#db.em().upsert(RoutingSetting, { accountId, settings: stored, updatedAt: new Date() });
    await this.#reload(); // read back rather than set here: a reload begun before this write is then older, and dropped
    await this.#hot.publish(CHANGED, accountId);
    return this.effective(accountId);
  }
}
