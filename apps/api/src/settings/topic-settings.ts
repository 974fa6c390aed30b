// A tenant's settings for one topic (capture, guard, alerts, …): held in memory so the hot
// path never waits on the database, written through to `tenant_settings`, and reloaded on
// every replica by a notice. The value is what the topic's zod schema parsed; a tenant
// that never wrote the topic reads the topic's defaults.
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';

export class TopicSettings<T extends object> {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #topic: string;
  readonly #defaults: T;
  #byAccount = new Map<string, T>();

  constructor(deps: { db: Database; hot: HotStore }, topic: string, defaults: T) {
    this.#db = deps.db;
    this.#hot = deps.hot;
    this.#topic = topic;
    this.#defaults = defaults;
  }

  get #notice(): string {
    return `tenant-settings:${this.#topic}:changed`;
  }

  async start(): Promise<void> {
    await this.#reload();
    await this.#hot.subscribe(this.#notice, () => this.#reload());
  }

  async #reload(): Promise<void> {
    const rows = (await this.#db.em().getConnection().execute('select account_id, settings from tenant_settings where topic = ?', [this.#topic])) as { account_id: string; settings: T }[];
    this.#byAccount = new Map(rows.map((r) => [r.account_id, { ...this.#defaults, ...r.settings }]));
  }

  /** The tenant's settings for this topic, or the defaults. */
  get(accountId: string): T {
    return this.#byAccount.get(accountId) ?? this.#defaults;
  }

  /** Every tenant that wrote this topic, with its settings (periodic jobs walk them). */
  entries(): IterableIterator<[string, T]> {
    return this.#byAccount.entries();
  }

  /** Replaces the tenant's settings for this topic (a PUT: fields left out take their defaults). */
  async put(accountId: string, settings: T): Promise<T> {
    const value = { ...this.#defaults, ...settings };
    await this.#db
      .em()
      .getConnection()
      .execute(
        'insert into tenant_settings (account_id, topic, settings) values (?, ?, ?) on conflict (account_id, topic) do update set settings = excluded.settings, updated_at = now()',
        [accountId, this.#topic, JSON.stringify(value)],
      );
    this.#byAccount.set(accountId, value);
    await this.#hot.publish(this.#notice, accountId);
    return value;
  }
}
