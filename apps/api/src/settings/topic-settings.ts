// A tenant's settings for one topic (capture, guard, alerts, limits): held in memory so the hot
// path never waits on the database, written through to `tenant_settings`, and reloaded on
// every replica by a notice. What is stored is what the tenant set (settings/merge.ts: a write
// merges into it, null returns a field to its default); what is read is that with the topic's
// defaults filled in by its zod schema. A tenant that never wrote the topic reads the defaults.
// Rows written by earlier versions hold every field (they replaced the settings whole): they
// read the same, and keep those values until a write sets a field to null.
import type { z } from 'zod';
import { alertSettings, captureSettings, guardSettings, rateLimitSettings } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { TenantSetting } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';
import { mergeWrite, type Stored } from './merge.ts';

/** Each topic's full schema: what a merged write is checked against and what fills the defaults in. */
const TOPICS: Record<string, z.ZodType<object>> = { alerts: alertSettings, capture: captureSettings, guard: guardSettings, limits: rateLimitSettings };

export class TopicSettings<T extends object> {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #topic: string;
  readonly #schema: z.ZodType<T>;
  readonly #defaults: T;
  #byAccount = new Map<string, { stored: Stored; effective: T }>();
  /** Overlapping reloads and writes: an older read never replaces a newer one. */
  readonly #reads = new NewestRead();

  /** `defaults`: what a tenant that never wrote the topic reads (the topic's schema parsing `{}`). */
  constructor(deps: { db: Database; hot: HotStore }, topic: string, defaults: T) {
    const schema = TOPICS[topic];
    if (!schema) throw new Error(`no schema for the settings topic ${topic}`);
    this.#db = deps.db;
    this.#hot = deps.hot;
    this.#topic = topic;
    this.#schema = schema as z.ZodType<T>;
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
    const rows = await this.#reads.read(() => this.#db.em().find(TenantSetting, { topic: this.#topic }));
    if (rows === undefined) return; // a reload begun later is in memory already
    this.#byAccount = new Map(rows.map((r) => [r.accountId, { stored: r.settings as Stored, effective: this.#effective(r.settings as Stored) }]));
  }

  /** The stored fields over the defaults; a row the schema no longer reads whole keeps the fields it can (shallow, as before). */
  #effective(stored: Stored): T {
    const r = this.#schema.safeParse(stored);
    return r.success ? r.data : ({ ...this.#defaults, ...stored } as T);
  }

  /** The tenant's effective settings for this topic (defaults filled in). */
  get(accountId: string): T {
    return this.#byAccount.get(accountId)?.effective ?? this.#defaults;
  }

  /** Every tenant that wrote this topic, with its settings (periodic jobs walk them). */
  *entries(): IterableIterator<[string, T]> {
    for (const [id, v] of this.#byAccount) yield [id, v.effective];
  }

  /**
   * The merge that `patch` makes of the tenant's settings, checked whole by the topic's schema
   * (422 naming the field), without storing it: the domain checks its own rules on it first.
   */
  preview(accountId: string, patch: object): { stored: Stored; effective: T } {
    return mergeWrite(this.#schema, this.#byAccount.get(accountId)?.stored ?? {}, patch);
  }

  /** Merges `patch` into the tenant's settings (a PUT: fields left out keep their values; null: the default); the effective settings. */
  async put(accountId: string, patch: object): Promise<T> {
    return this.store(accountId, this.preview(accountId, patch));
  }

  /** Stores a merge `preview` made. */
  async store(accountId: string, next: { stored: Stored; effective: T }): Promise<T> {
    await this.#db.em().upsert(TenantSetting, { accountId, topic: this.#topic, settings: next.stored, updatedAt: new Date() });
    // read back rather than set here: a reload begun before this write is then older, and dropped
    await this.#reload();
    await this.#hot.publish(this.#notice, accountId);
    return this.get(accountId);
  }
}
