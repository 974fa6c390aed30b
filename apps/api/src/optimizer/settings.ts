// Per-tenant routing settings: held in memory (hot path), written through to the
// database and reloaded on every replica by a notice.
import type { RoutingSettingsWrite } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';

const CHANGED = 'routing-settings:changed';
export const DEFAULT_FLOOR = 0.95;

export class RoutingSettings {
  readonly #db: Database;
  readonly #hot: HotStore;
  #byAccount = new Map<string, RoutingSettingsWrite>();

  constructor(db: Database, hot: HotStore) {
    this.#db = db;
    this.#hot = hot;
  }

  async start(): Promise<void> {
    await this.#reload();
    await this.#hot.subscribe(CHANGED, () => this.#reload());
  }

  async #reload(): Promise<void> {
    const rows = (await this.#db.em().getConnection().execute('select account_id, settings from routing_settings')) as { account_id: string; settings: RoutingSettingsWrite }[];
    this.#byAccount = new Map(rows.map((r) => [r.account_id, r.settings]));
  }

  get(accountId: string): RoutingSettingsWrite {
    return this.#byAccount.get(accountId) ?? {};
  }

  floor(accountId: string): number {
    return this.get(accountId).quality_floor ?? DEFAULT_FLOOR;
  }

  async put(accountId: string, s: RoutingSettingsWrite): Promise<RoutingSettingsWrite> {
    await this.#db
      .em()
      .getConnection()
      .execute('insert into routing_settings (account_id, settings) values (?, ?) on conflict (account_id) do update set settings = excluded.settings, updated_at = now()', [accountId, JSON.stringify(s)]);
    this.#byAccount.set(accountId, s);
    await this.#hot.publish(CHANGED, accountId);
    return s;
  }
}
